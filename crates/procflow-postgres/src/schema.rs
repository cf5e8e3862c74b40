// @generated automatically by Diesel CLI.

diesel::table! {
    api_keys (team_id, id) {
        team_id -> Uuid,
        id -> Uuid,
        name -> Nullable<Text>,
        prefix -> Text,
        key_hash -> Bytea,
        created_by -> Uuid,
        created_at -> Timestamptz,
        revoked_at -> Nullable<Timestamptz>,
        scope -> Text,
    }
}

diesel::table! {
    emails (team_id, id) {
        team_id -> Uuid,
        id -> Uuid,
        event_id -> Uuid,
        kind -> Text,
        recipient -> Text,
        content -> Jsonb,
        status -> Text,
        attempts -> Int4,
        error -> Nullable<Text>,
        created_at -> Timestamptz,
        last_attempt_at -> Nullable<Timestamptz>,
        due_at -> Timestamptz,
        lease -> Nullable<Uuid>,
        holder -> Nullable<Uuid>,
    }
}

diesel::table! {
    idempotency_keys (team_id, key) {
        team_id -> Uuid,
        key -> Text,
        request_hash -> Bytea,
        response_status -> Nullable<Int4>,
        response_body -> Nullable<Bytea>,
        created_at -> Timestamptz,
        completed_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    members (team_id, id) {
        team_id -> Uuid,
        id -> Uuid,
        email -> Text,
        name -> Nullable<Text>,
        role -> Text,
        active -> Bool,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    outbox (team_id, id) {
        id -> Uuid,
        team_id -> Uuid,
        kind -> Text,
        payload -> Jsonb,
        occurred_at -> Timestamptz,
        due_at -> Timestamptz,
        attempts -> Int4,
        leased_until -> Nullable<Timestamptz>,
        delivered_at -> Nullable<Timestamptz>,
        last_error -> Nullable<Text>,
        webhook_event -> Nullable<Text>,
        dead_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    rate_limits (team_id, api_key_id) {
        team_id -> Uuid,
        api_key_id -> Uuid,
        second -> Int8,
        counts -> Array<Nullable<Int4>>,
        admitted -> Bool,
    }
}

diesel::table! {
    rate_windows (name) {
        name -> Text,
        second -> Int8,
        counts -> Array<Nullable<Int4>>,
    }
}

diesel::table! {
    run_guests (team_id, run_id) {
        team_id -> Uuid,
        run_id -> Uuid,
        id -> Uuid,
        email -> Text,
        enable_reminders -> Bool,
        reminder_days -> Int4,
        invited_at -> Timestamptz,
        engaged_at -> Nullable<Timestamptz>,
        reminded_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    run_links (team_id, template_id) {
        team_id -> Uuid,
        template_id -> Uuid,
        token -> Text,
        token_hash -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    run_sections (team_id, run_id, id) {
        team_id -> Uuid,
        run_id -> Uuid,
        id -> Uuid,
        title -> Text,
        description -> Nullable<Text>,
        position -> Int4,
        color -> Nullable<Text>,
    }
}

diesel::table! {
    run_share_links (team_id, run_id, token_hash) {
        team_id -> Uuid,
        run_id -> Uuid,
        token_hash -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    run_shares (team_id, run_id) {
        team_id -> Uuid,
        run_id -> Uuid,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    run_tasks (team_id, run_id, id) {
        team_id -> Uuid,
        run_id -> Uuid,
        id -> Uuid,
        template_task_id -> Uuid,
        section_id -> Uuid,
        title -> Text,
        position -> Int4,
        state -> Text,
        completed_at -> Nullable<Timestamptz>,
        completed_by -> Nullable<Text>,
        assignee -> Nullable<Text>,
        is_essential -> Bool,
        task_type -> Text,
        due_date -> Nullable<Timestamptz>,
        webhook_enabled -> Bool,
        decision -> Nullable<Text>,
        comment -> Nullable<Text>,
        custom_elements -> Jsonb,
        created_at -> Timestamptz,
        overdue_next_at -> Nullable<Timestamptz>,
        reference -> Nullable<Text>,
        depends_on -> Jsonb,
        hidden -> Bool,
        blocked -> Bool,
    }
}

diesel::table! {
    runs (team_id, id) {
        team_id -> Uuid,
        id -> Uuid,
        template_id -> Uuid,
        template_version -> Int4,
        title -> Text,
        status -> Text,
        started_by -> Text,
        timezone -> Text,
        due_date -> Nullable<Timestamptz>,
        is_shared -> Bool,
        open_tasks -> Int4,
        created_at -> Timestamptz,
        updated_at -> Nullable<Timestamptz>,
        completed_at -> Nullable<Timestamptz>,
        logic -> Nullable<Jsonb>,
        logic_state -> Nullable<Jsonb>,
    }
}

diesel::table! {
    schedule_occurrences (team_id, schedule_id, occurrence_at) {
        team_id -> Uuid,
        schedule_id -> Uuid,
        occurrence_at -> Timestamptz,
        run_id -> Uuid,
    }
}

diesel::table! {
    schedules (team_id, id) {
        team_id -> Uuid,
        id -> Uuid,
        template_id -> Uuid,
        name -> Nullable<Text>,
        recurrence -> Text,
        timezone -> Text,
        enabled -> Bool,
        run -> Jsonb,
        next_run_at -> Nullable<Timestamptz>,
        last_run_at -> Nullable<Timestamptz>,
        last_run_id -> Nullable<Uuid>,
        last_error -> Nullable<Jsonb>,
        missed_count -> Int8,
        revision -> Int8,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    task_attachments (team_id, id) {
        team_id -> Uuid,
        id -> Uuid,
        run_id -> Uuid,
        task_id -> Uuid,
        filename -> Text,
        content_type -> Text,
        size -> Int8,
        sha256 -> Text,
        author -> Text,
        author_email -> Nullable<Text>,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    task_comments (team_id, id) {
        team_id -> Uuid,
        id -> Uuid,
        run_id -> Uuid,
        task_id -> Uuid,
        author -> Text,
        author_email -> Nullable<Text>,
        body -> Text,
        mentions -> Array<Nullable<Uuid>>,
        deleted -> Bool,
        created_at -> Timestamptz,
        edited_at -> Nullable<Timestamptz>,
        attachment_ids -> Array<Nullable<Uuid>>,
    }
}

diesel::table! {
    teams (id) {
        id -> Uuid,
        name -> Text,
        base_url -> Text,
        timezone -> Text,
        subscription -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    template_sections (team_id, template_id, id) {
        team_id -> Uuid,
        template_id -> Uuid,
        id -> Uuid,
        title -> Text,
        description -> Nullable<Text>,
        position -> Int4,
        color -> Nullable<Text>,
    }
}

diesel::table! {
    template_tasks (team_id, template_id, id) {
        team_id -> Uuid,
        template_id -> Uuid,
        id -> Uuid,
        section_id -> Uuid,
        title -> Text,
        position -> Int4,
        assignee -> Nullable<Text>,
        is_essential -> Bool,
        task_type -> Text,
        due_date -> Nullable<Jsonb>,
        webhook_enabled -> Bool,
        custom_elements -> Jsonb,
        created_at -> Timestamptz,
        reference -> Nullable<Text>,
        depends_on -> Jsonb,
    }
}

diesel::table! {
    templates (team_id, id) {
        team_id -> Uuid,
        id -> Uuid,
        title -> Text,
        description -> Nullable<Text>,
        cover_image -> Nullable<Text>,
        icon -> Nullable<Text>,
        icon_type -> Nullable<Text>,
        is_published -> Bool,
        version -> Int4,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        archived_at -> Nullable<Timestamptz>,
        rules -> Jsonb,
    }
}

diesel::table! {
    token_directory (kind, digest) {
        kind -> Text,
        digest -> Text,
        team_id -> Uuid,
    }
}

diesel::table! {
    webhook_deliveries (team_id, id) {
        team_id -> Uuid,
        id -> Uuid,
        webhook_id -> Uuid,
        event_id -> Uuid,
        event -> Text,
        origin -> Text,
        status -> Text,
        attempts -> Int4,
        response_status -> Nullable<Int4>,
        response_body -> Nullable<Text>,
        error -> Nullable<Text>,
        payload -> Text,
        created_at -> Timestamptz,
        last_attempt_at -> Nullable<Timestamptz>,
        due_at -> Timestamptz,
        lease -> Nullable<Uuid>,
        holder -> Nullable<Uuid>,
    }
}

diesel::table! {
    webhook_endpoints (team_id, id) {
        team_id -> Uuid,
        id -> Uuid,
        url -> Text,
        events -> Array<Nullable<Text>>,
        description -> Nullable<Text>,
        enabled -> Bool,
        disabled_reason -> Nullable<Text>,
        consecutive_failures -> Int4,
        secret -> Text,
        previous_secret -> Nullable<Text>,
        previous_secret_until -> Nullable<Timestamptz>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::joinable!(api_keys -> teams (team_id));
diesel::joinable!(emails -> teams (team_id));
diesel::joinable!(idempotency_keys -> teams (team_id));
diesel::joinable!(members -> teams (team_id));
diesel::joinable!(outbox -> teams (team_id));
diesel::joinable!(schedules -> teams (team_id));
diesel::joinable!(templates -> teams (team_id));
diesel::joinable!(webhook_endpoints -> teams (team_id));

diesel::allow_tables_to_appear_in_same_query!(
    api_keys,
    emails,
    idempotency_keys,
    members,
    outbox,
    rate_limits,
    rate_windows,
    run_guests,
    run_links,
    run_sections,
    run_share_links,
    run_shares,
    run_tasks,
    runs,
    schedule_occurrences,
    schedules,
    task_attachments,
    task_comments,
    teams,
    template_sections,
    template_tasks,
    templates,
    token_directory,
    webhook_deliveries,
    webhook_endpoints,
);
