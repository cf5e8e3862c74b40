//! The MCP server: the tools of [`TOOLS`](crate::TOOLS) the key may call, each built from the
//! API's document at start, each call one request of the API; the API's refusals come back as
//! tool errors (`isError`) with its status, code and message.

use std::sync::Arc;

use reqwest::Method;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{Map, Value};

use crate::api::{Api, ApiFailure, Config, Request};
use crate::schema::{self, Plan};
use crate::tools::TOOLS;

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The HTTP client.
    #[error("cannot build the HTTP client: {0}")]
    Client(#[from] reqwest::Error),
    /// The API refused the key, or did not answer.
    #[error("the API at PROCFLOW_API_URL: {0}")]
    Api(#[from] ApiFailure),
    /// The API's document lacks an operation of a tool (an older server).
    #[error(transparent)]
    Document(#[from] schema::MissingOperation),
    /// The MCP session could not start on stdio.
    #[error("the MCP session: {0}")]
    Session(String),
}

/// The server's state: the API and the tools the key may call.
#[derive(Clone)]
pub struct McpServer {
    api: Api,
    tools: Arc<Vec<(Tool, Plan)>>,
}

impl McpServer {
    /// Reads the API's document and the key's scope, and builds the tools: every tool for a
    /// write key, the read tools for a read key.
    ///
    /// # Errors
    /// See [`StartError`].
    pub async fn start(config: Config) -> Result<Self, StartError> {
        let api = Api::new(config)?;
        let document = api.document().await?;
        let writes = api.may_write().await?;
        let mut tools = Vec::new();
        for spec in TOOLS.iter().filter(|spec| spec.reads || writes) {
            let (input, plan) = schema::build(&document, spec)?;
            let tool = Tool::new(spec.name, spec.purpose, input);
            tools.push((tool, plan));
        }
        tracing::info!(tools = tools.len(), writes, "procflow MCP server ready");
        Ok(Self {
            api,
            tools: Arc::new(tools),
        })
    }

    /// The names of the tools it lists.
    #[must_use]
    pub fn tool_names(&self) -> Vec<String> {
        self.tools.iter().map(|(t, _)| t.name.to_string()).collect()
    }

    async fn call(&self, plan: &Plan, mut arguments: Map<String, Value>) -> CallToolResult {
        let request = match request(plan, &mut arguments) {
            Ok(request) => request,
            Err(message) => {
                return failure(&ApiFailure {
                    status: 400,
                    code: "validation_error".into(),
                    message,
                });
            }
        };
        match self.api.send(request).await {
            Ok(body) => CallToolResult::success(vec![ContentBlock::text(body.to_string())]),
            Err(refused) => failure(&refused),
        }
    }
}

fn failure(refused: &ApiFailure) -> CallToolResult {
    CallToolResult::structured_error(refused.to_json())
}

/// The request of a tool call: path parameters into the path, query parameters into the
/// query, `if_match` into `If-Match`, every other argument into the JSON body.
fn request(plan: &Plan, arguments: &mut Map<String, Value>) -> Result<Request, String> {
    let mut path = plan.path.clone();
    for (name, argument) in &plan.path_params {
        let value = match arguments.remove(argument) {
            Some(Value::String(value)) if !value.is_empty() => value,
            Some(_) => return Err(format!("{argument} must be a non-empty string")),
            None => return Err(format!("{argument} is required")),
        };
        path = path.replace(&format!("{{{name}}}"), &encode(&value));
    }
    let mut query = Vec::new();
    for name in &plan.query_params {
        match arguments.remove(name) {
            None | Some(Value::Null) => {}
            Some(Value::String(text)) => query.push((name.clone(), text)),
            Some(other) => query.push((name.clone(), other.to_string())),
        }
    }
    let if_match = match arguments.remove("if_match").filter(|_| plan.if_match) {
        None | Some(Value::Null) => None,
        Some(Value::String(tag)) => Some(tag),
        Some(_) => return Err("if_match must be a string (an ETag)".into()),
    };
    let body = if plan.body {
        Some(Value::Object(std::mem::take(arguments)))
    } else if let Some(unknown) = arguments.keys().next() {
        return Err(format!("unknown argument {unknown}"));
    } else {
        None
    };
    let method = Method::from_bytes(plan.method.to_uppercase().as_bytes())
        .map_err(|_| format!("unknown method {}", plan.method))?;
    Ok(Request {
        method,
        path,
        query,
        body,
        if_match,
    })
}

/// A path segment, percent-encoded (anything but unreserved characters).
fn encode(segment: &str) -> String {
    segment
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("procflow", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "procflow runs processes (templates, runs, tasks with form fields). Use my_tasks \
                 to find open work, update_task to complete it. Every call goes through the \
                 procflow API with its key, scopes and rate limit; refusals come back as tool \
                 errors with the API's code and message.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.tools.iter().map(|(tool, _)| tool.clone()).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some((_, plan)) = self
            .tools
            .iter()
            .find(|(tool, _)| tool.name == request.name)
        else {
            return Err(ErrorData::invalid_params(
                format!(
                    "no tool {} (a read key has only the read tools)",
                    request.name
                ),
                None,
            ));
        };
        let result = self.call(plan, request.arguments.unwrap_or_default()).await;
        Ok(result.into())
    }
}

/// `procflow mcp`: serves MCP on stdin/stdout until the client closes it.
///
/// # Errors
/// See [`StartError`].
pub async fn serve_stdio(config: Config) -> Result<(), StartError> {
    let server = McpServer::start(config).await?;
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| StartError::Session(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| StartError::Session(e.to_string()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> Plan {
        Plan {
            method: "patch".into(),
            path: "/api/v1/process-runs/{id}/tasks/{task_id}".into(),
            path_params: vec![
                ("id".into(), "run_id".into()),
                ("task_id".into(), "task_id".into()),
            ],
            query_params: vec!["validate_only".into()],
            body: true,
            if_match: true,
        }
    }

    #[test]
    fn arguments_go_to_the_path_query_header_and_body() {
        let mut arguments = serde_json::json!({
            "run_id": "r/1", "task_id": "t", "validate_only": true,
            "if_match": "\"abc\"", "completed": true
        })
        .as_object()
        .cloned()
        .unwrap();
        let request = request(&plan(), &mut arguments).unwrap();
        assert_eq!(request.method, Method::PATCH);
        assert_eq!(request.path, "/api/v1/process-runs/r%2F1/tasks/t");
        assert_eq!(
            request.query,
            [("validate_only".to_owned(), "true".to_owned())]
        );
        assert_eq!(request.if_match.as_deref(), Some("\"abc\""));
        assert_eq!(request.body, Some(serde_json::json!({"completed": true})));
    }

    #[test]
    fn a_missing_path_argument_is_refused() {
        let mut arguments = Map::new();
        assert_eq!(
            request(&plan(), &mut arguments).unwrap_err(),
            "run_id is required"
        );
    }
}
