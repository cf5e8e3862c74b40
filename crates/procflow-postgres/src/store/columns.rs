//! Column lists of statements written as fixed text, as diesel's query builder writes the same
//! selections. Each statement that uses one compares its whole text with diesel's in a test.

/// `RunTaskRow`'s selection (`RunTaskRow::as_select()`), a string literal for `concat!`.
macro_rules! run_task_columns {
    () => {
        "\"run_tasks\".\"team_id\", \"run_tasks\".\"run_id\", \"run_tasks\".\"id\", \
\"run_tasks\".\"template_task_id\", \"run_tasks\".\"section_id\", \"run_tasks\".\"title\", \
\"run_tasks\".\"position\", \"run_tasks\".\"state\", \"run_tasks\".\"completed_at\", \
\"run_tasks\".\"completed_by\", \"run_tasks\".\"assignee\", \"run_tasks\".\"is_essential\", \
\"run_tasks\".\"task_type\", \"run_tasks\".\"due_date\", \"run_tasks\".\"webhook_enabled\", \
\"run_tasks\".\"decision\", \"run_tasks\".\"comment\", \"run_tasks\".\"custom_elements\", \
\"run_tasks\".\"created_at\", \"run_tasks\".\"reference\", \"run_tasks\".\"depends_on\", \
\"run_tasks\".\"hidden\", \"run_tasks\".\"blocked\""
    };
}

/// `RunRow`'s selection (`RunRow::as_select()`: the header's columns, then the plan).
macro_rules! run_columns {
    () => {
        "\"runs\".\"team_id\", \"runs\".\"id\", \"runs\".\"template_id\", \
\"runs\".\"template_version\", \"runs\".\"title\", \"runs\".\"status\", \"runs\".\"started_by\", \
\"runs\".\"timezone\", \"runs\".\"due_date\", \"runs\".\"is_shared\", \"runs\".\"open_tasks\", \
\"runs\".\"created_at\", \"runs\".\"updated_at\", \"runs\".\"completed_at\", \
\"runs\".\"logic_state\", \"runs\".\"logic\""
    };
}

/// `RunSectionRow`'s selection (`RunSectionRow::as_select()`).
macro_rules! run_section_columns {
    () => {
        "\"run_sections\".\"team_id\", \"run_sections\".\"run_id\", \"run_sections\".\"id\", \
\"run_sections\".\"title\", \"run_sections\".\"description\", \"run_sections\".\"position\", \
\"run_sections\".\"color\""
    };
}

/// `CommentRow`'s selection (`CommentRow::as_select()`).
macro_rules! comment_columns {
    () => {
        "\"task_comments\".\"team_id\", \"task_comments\".\"id\", \"task_comments\".\"run_id\", \
\"task_comments\".\"task_id\", \"task_comments\".\"author\", \"task_comments\".\"author_email\", \
\"task_comments\".\"body\", \"task_comments\".\"mentions\", \"task_comments\".\"deleted\", \
\"task_comments\".\"created_at\", \"task_comments\".\"edited_at\", \"task_comments\".\"attachment_ids\""
    };
}

/// `ScheduleRow`'s selection (`ScheduleRow::as_select()`).
macro_rules! schedule_columns {
    () => {
        "\"schedules\".\"team_id\", \"schedules\".\"id\", \"schedules\".\"template_id\", \
\"schedules\".\"name\", \"schedules\".\"recurrence\", \"schedules\".\"timezone\", \
\"schedules\".\"enabled\", \"schedules\".\"run\", \"schedules\".\"next_run_at\", \
\"schedules\".\"last_run_at\", \"schedules\".\"last_run_id\", \"schedules\".\"last_error\", \
\"schedules\".\"missed_count\", \"schedules\".\"revision\", \"schedules\".\"created_at\", \
\"schedules\".\"updated_at\""
    };
}

pub(super) use {
    comment_columns, run_columns, run_section_columns, run_task_columns, schedule_columns,
};
