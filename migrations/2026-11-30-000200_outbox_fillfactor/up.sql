-- Room on each page of the outbox for the rows' next versions. The worker claims an event by
-- writing its lease (`leased_until`), which no index and no index predicate names, so the new
-- version may be a HOT update: on the same page, no entry in any of the table's eight indexes.
-- But PostgreSQL fills a page with inserts before any update, and on a full page the new
-- version goes to another one, entered in every index: 88 % of the outbox's updates on the
-- bench database, some 25 buffers and 3.6 KB of WAL per claimed row. With 30 % of each new
-- page left free, claims under load are HOT (docs/performance.md, "The outbox's claims in
-- place"). Existing pages keep their rows; the room applies to pages filled from now on.
-- Settling an event (`delivered_at`) is never HOT: partial indexes name that column.
ALTER TABLE outbox SET (fillfactor = 70);
