-- Teams (tenants), their members and API keys. Every tenant table that follows carries
-- team_id, and its keys and foreign keys include it, so tenants stay apart in the schema itself.
CREATE TABLE teams (
    id           uuid PRIMARY KEY,
    name         text NOT NULL CHECK (name <> ''),
    base_url     text NOT NULL,
    timezone     text NOT NULL DEFAULT 'UTC',
    subscription text NOT NULL DEFAULT 'active' CHECK (subscription IN ('active', 'inactive')),
    created_at   timestamptz NOT NULL
);

CREATE TABLE members (
    team_id    uuid NOT NULL REFERENCES teams (id),
    id         uuid NOT NULL,
    -- Stored lower-cased by the domain's Email type; unique per team.
    email      text NOT NULL CHECK (email = lower(email)),
    name       text,
    role       text NOT NULL CHECK (role IN ('admin', 'member')),
    active     boolean NOT NULL DEFAULT true,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (team_id, id),
    CONSTRAINT members_team_email_key UNIQUE (team_id, email)
);

CREATE TABLE api_keys (
    team_id    uuid NOT NULL REFERENCES teams (id),
    id         uuid NOT NULL,
    name       text,
    -- The first characters of the key, for display; not secret.
    prefix     text NOT NULL,
    -- SHA-256 of the key; the key itself is never stored.
    key_hash   bytea NOT NULL CHECK (octet_length(key_hash) = 32),
    created_by uuid NOT NULL,
    created_at timestamptz NOT NULL,
    revoked_at timestamptz,
    PRIMARY KEY (team_id, id),
    CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash),
    FOREIGN KEY (team_id, created_by) REFERENCES members (team_id, id)
);
