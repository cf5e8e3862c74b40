ALTER TABLE task_comments DROP COLUMN attachment_ids;
DROP TABLE task_attachments;
