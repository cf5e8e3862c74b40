//! The table `make chaos` prints: one row per figure, with whether its property held.

/// Rows of (scenario, figure, value, held).
#[derive(Default)]
pub struct Table {
    rows: Vec<(String, String, String, bool)>,
}

impl Table {
    /// A figure with no pass/fail of its own.
    pub fn figure(&mut self, scenario: &str, figure: &str, value: impl ToString) {
        self.rows.push((
            scenario.to_owned(),
            figure.to_owned(),
            value.to_string(),
            true,
        ));
    }

    /// A figure and whether its property held.
    pub fn check(&mut self, scenario: &str, figure: &str, value: impl ToString, held: bool) {
        self.rows.push((
            scenario.to_owned(),
            figure.to_owned(),
            value.to_string(),
            held,
        ));
    }

    pub fn all_held(&self) -> bool {
        self.rows.iter().all(|row| row.3)
    }

    pub fn print(&self) {
        let width = |i: usize| {
            self.rows
                .iter()
                .map(|r| [&r.0, &r.1, &r.2][i].chars().count())
                .max()
                .unwrap_or(0)
        };
        let (a, b, c) = (width(0).max(8), width(1).max(6), width(2).max(5));
        println!(
            "| {:a$} | {:b$} | {:c$} | held |",
            "scenario", "figure", "value"
        );
        println!(
            "|{}|{}|{}|------|",
            "-".repeat(a + 2),
            "-".repeat(b + 2),
            "-".repeat(c + 2)
        );
        for (scenario, figure, value, held) in &self.rows {
            let held = if *held { "yes " } else { "NO  " };
            println!("| {scenario:a$} | {figure:b$} | {value:c$} | {held} |");
        }
    }
}
