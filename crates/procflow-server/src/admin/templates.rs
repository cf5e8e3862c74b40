//! `import-template`: an authoring document file becomes a draft, published on request.

use procflow_domain::template::TemplateDocument;
use serde_json::{Value, json};

use super::Admin;
use crate::cli::ImportTemplate;
use crate::error::{CommandCode, CommandError};

impl Admin {
    pub(super) async fn import_template(
        &self,
        args: ImportTemplate,
    ) -> Result<Value, CommandError> {
        let file = args.file.display().to_string();
        // A one-shot command: reading a small file in place blocks nothing that matters.
        let text = std::fs::read_to_string(&args.file)
            .map_err(|e| CommandError::new(CommandCode::Io, format!("cannot read {file}: {e}")))?;
        let json: Value = serde_json::from_str(&text)
            .map_err(|e| CommandError::validation(format!("{file}: not valid JSON: {e}")))?;
        let in_file = |e: procflow_domain::error::ValidationError| {
            CommandError::validation(format!("{file}: {e}"))
        };
        let document = TemplateDocument::from_json(json).map_err(in_file)?;
        if args.publish && document.sections.iter().all(|s| s.tasks.is_empty()) {
            // Refused before anything is written, rather than leaving a draft behind.
            return Err(CommandError::validation(format!(
                "{file}: --publish: a template needs at least one task to be published"
            )));
        }
        let team = self.team(args.team).await?;
        let mut template = self
            .procflow
            .create_template(&team, document)
            .await
            .map_err(|e| match e {
                procflow_domain::error::DomainError::Validation(e) => in_file(e),
                other => other.into(),
            })?;
        if args.publish {
            template = self
                .procflow
                .publish_template(&team, template.id, true)
                .await?;
        }
        tracing::info!(team.id = %team.id, template.id = %template.id, published = template.is_published, "imported a template");
        Ok(json!({
            "template_id": template.id,
            "version": template.version,
            "is_published": template.is_published,
            "tasks": template.tasks.len(),
        }))
    }
}
