//! A real headless Chromium (Debian's `chromium`) driven over WebDriver (`chromedriver`), for
//! the guest page's browser tests: controls found by their labels as a person finds them,
//! the DOM inspected, axe-core's accessibility rules run, screenshots taken.
//!
//! `make test` installs the browser, its driver and axe-core first (`scripts/ensure-browser.sh`);
//! without them these tests fail and say so.

use std::net::TcpListener;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use thirtyfour::prelude::*;

/// How long a page may take to load or a condition to hold, at most.
const DEADLINE: Duration = Duration::from_secs(20);

/// Chromium's flags on this kind of machine: headless, no sandbox (root in a container), no
/// GPU, and none of its own network traffic (which a closed network refuses, slowly).
const CHROMIUM_ARGS: &[&str] = &[
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--no-first-run",
    "--no-default-browser-check",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
    "--lang=en-US",
];

/// A browser session, with the ChromeDriver process it runs on (in a process group of its
/// own, with the browser it starts): both are stopped when it drops, whatever happened.
pub struct Browser {
    driver: Option<WebDriver>,
    chromedriver: Child,
    _profile: tempfile::TempDir,
}

/// An accessibility rule a page breaks, as axe-core reports it.
#[derive(Debug)]
pub struct Violation {
    /// The rule.
    pub id: String,
    /// `minor`, `moderate`, `serious` or `critical`.
    pub impact: String,
    /// What the rule asks.
    pub help: String,
    /// Where on the page.
    pub targets: Vec<String>,
}

fn installed(program: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| {
            panic!("{program} is not installed: run `make browser-tools` (or `make test`)")
        })
}

/// The axe-core script `make browser-tools` installs.
fn axe_source() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/browser/node_modules/axe-core/axe.min.js"
    );
    std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!("{path}: {e}: run `make browser-tools` (or `make test`) to install axe-core")
    })
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
        .port()
}

impl Browser {
    /// Starts ChromeDriver on a free port and a fresh headless Chromium session on it, with a
    /// window of `width` x `height`.
    pub async fn start(width: u32, height: u32) -> Self {
        let chromium = installed("chromium");
        let port = free_port();
        let chromedriver = Command::new(installed("chromedriver"))
            .arg(format!("--port={port}"))
            .arg("--log-level=SEVERE")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("chromedriver starts");
        let profile = tempfile::tempdir().expect("a profile directory");
        let mut browser = Self {
            driver: None,
            chromedriver,
            _profile: profile,
        };
        let url = format!("http://127.0.0.1:{port}");
        let client = reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("client");
        let ready = Instant::now() + DEADLINE;
        loop {
            let status = client.get(format!("{url}/status")).send().await;
            if let Ok(status) = status
                && let Ok(body) = status.json::<Value>().await
                && body["value"]["ready"] == true
            {
                break;
            }
            assert!(
                Instant::now() < ready,
                "chromedriver did not get ready in time"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let mut caps = DesiredCapabilities::chrome();
        caps.set_binary(&chromium.to_string_lossy())
            .expect("binary");
        for arg in CHROMIUM_ARGS {
            caps.add_arg(arg).expect("argument");
        }
        caps.add_arg(&format!(
            "--user-data-dir={}",
            browser._profile.path().display()
        ))
        .expect("argument");
        caps.add_arg(&format!("--window-size={width},{height}"))
            .expect("argument");
        let driver = WebDriver::builder(url, caps)
            .request_timeout(Duration::from_secs(30))
            .await
            .expect("a Chromium session");
        browser.driver = Some(driver);
        browser
    }

    /// The session.
    #[must_use]
    pub fn driver(&self) -> &WebDriver {
        self.driver.as_ref().expect("a session")
    }

    /// Opens `url` and waits until it is loaded.
    pub async fn open(&self, url: &str) {
        self.driver().goto(url).await.expect("navigation");
        self.wait_loaded().await;
    }

    /// Waits until the document has loaded.
    pub async fn wait_loaded(&self) {
        self.wait_until("document.readyState === 'complete'").await;
    }

    /// Runs `script` (a function body) and returns what it returns.
    pub async fn run(&self, script: &str, args: Vec<Value>) -> Value {
        self.driver()
            .execute(script, args)
            .await
            .unwrap_or_else(|e| panic!("script failed: {e}: {script}"))
            .json()
            .clone()
    }

    /// Waits until the JavaScript expression `condition` is true.
    pub async fn wait_until(&self, condition: &str) {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let holds = self
                .driver()
                .execute(format!("return !!({condition});"), Vec::new())
                .await
                .map(|ret| ret.json() == &Value::Bool(true))
                .unwrap_or(false);
            if holds {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {condition}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The current address.
    pub async fn url(&self) -> String {
        self.driver()
            .current_url()
            .await
            .expect("current url")
            .to_string()
    }

    /// A task's item on the page (`li#task-<id>`).
    pub async fn task(&self, task_id: &str) -> WebElement {
        self.driver()
            .find(By::Id(format!("task-{task_id}")))
            .await
            .unwrap_or_else(|e| panic!("task {task_id}: {e}"))
    }

    /// The control of a task that the label (or a fieldset's legend) starting with `label`
    /// names, found as assistive technology finds it: through the label's `for`.
    pub async fn control(&self, task_id: &str, label: &str) -> WebElement {
        let task = self.task(task_id).await;
        let literal = xpath_literal(label);
        if let Ok(label) = task
            .find(By::XPath(format!(
                ".//label[starts-with(normalize-space(.), {literal})]"
            )))
            .await
        {
            let target = label.attr("for").await.expect("for").expect("a for");
            return self
                .driver()
                .find(By::Id(target))
                .await
                .expect("the labelled control");
        }
        task.find(By::XPath(format!(
            ".//fieldset[legend[starts-with(normalize-space(.), {literal})]]"
        )))
        .await
        .unwrap_or_else(|e| panic!("task {task_id} has no control labelled {label:?}: {e}"))
    }

    /// A task's button by its visible text.
    pub async fn button(&self, task_id: &str, text: &str) -> WebElement {
        self.task(task_id)
            .await
            .find(By::XPath(format!(
                ".//button[normalize-space(.)={}]",
                xpath_literal(text)
            )))
            .await
            .unwrap_or_else(|e| panic!("task {task_id} has no button {text:?}: {e}"))
    }

    /// The visible text of the element `selector` selects.
    pub async fn text_of(&self, selector: &str) -> String {
        self.driver()
            .find(By::Css(selector))
            .await
            .unwrap_or_else(|e| panic!("{selector}: {e}"))
            .text()
            .await
            .expect("text")
    }

    /// Presses a button and waits for the page it leads to.
    pub async fn press(&self, button: WebElement) {
        let before = self.run("return performance.timeOrigin;", Vec::new()).await;
        button.click().await.expect("click");
        let deadline = Instant::now() + DEADLINE;
        loop {
            let now = self
                .driver()
                .execute("return performance.timeOrigin;", Vec::new())
                .await
                .map(|ret| ret.json().clone());
            if matches!(&now, Ok(origin) if *origin != before) {
                break;
            }
            assert!(Instant::now() < deadline, "the press led to no new page");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        self.wait_loaded().await;
    }

    /// Whether a JavaScript dialog (an `alert` of an injected script, say) is open.
    pub async fn dialog_open(&self) -> bool {
        self.driver().get_alert_text().await.is_ok()
    }

    /// What the page would let run or load if something got through the escaping: script
    /// elements, event-handler attributes, `javascript:` URLs, frames, objects, SVG.
    pub async fn dangerous_nodes(&self) -> Value {
        self.run(
            "const all = [...document.querySelectorAll('*')];
             return {
               scripts: document.querySelectorAll('script').length,
               svg_outside_sections: [...document.querySelectorAll('svg')]
                 .filter(s => !s.matches('section > svg.stripe')).length,
               frames: document.querySelectorAll('iframe, frame, object, embed').length,
               handlers: all.flatMap(e => [...e.attributes].map(a => a.name))
                 .filter(n => n.startsWith('on')),
               javascript_urls: all.flatMap(e => [...e.attributes].map(a => a.value))
                 .filter(v => v.trim().toLowerCase().startsWith('javascript:')),
               pwned: window.__pwned === true,
             };",
            Vec::new(),
        )
        .await
    }

    /// Runs axe-core on the page and returns the rules it breaks.
    pub async fn axe(&self) -> Vec<Violation> {
        self.run(&axe_source(), Vec::new()).await;
        let report = self
            .driver()
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 axe.run(document, {resultTypes: ['violations']})
                   .then(r => done(r.violations.map(v => ({
                     id: v.id, impact: v.impact || '', help: v.help,
                     targets: v.nodes.map(n => n.target.join(' '))}))))
                   .catch(e => done({error: String(e)}));",
                Vec::new(),
            )
            .await
            .expect("axe runs")
            .json()
            .clone();
        let violations = report
            .as_array()
            .unwrap_or_else(|| panic!("axe failed: {report}"));
        violations
            .iter()
            .map(|v| Violation {
                id: v["id"].as_str().unwrap_or_default().to_owned(),
                impact: v["impact"].as_str().unwrap_or_default().to_owned(),
                help: v["help"].as_str().unwrap_or_default().to_owned(),
                targets: v["targets"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|t| t.as_str().map(str::to_owned))
                    .collect(),
            })
            .collect()
    }

    /// A screenshot of the whole page at `width` CSS pixels, written to `path` (PNG).
    pub async fn screenshot(&self, width: u32, path: &Path) {
        let driver = self.driver();
        driver
            .set_window_rect(0, 0, width, 800)
            .await
            .expect("window size");
        let height = self
            .run(
                "return Math.ceil(document.documentElement.scrollHeight);",
                Vec::new(),
            )
            .await
            .as_u64()
            .and_then(|h| u32::try_from(h).ok())
            .unwrap_or(800);
        // The window's height includes what is not page (even headless): add it.
        let chrome = self
            .run(
                "return window.outerHeight - window.innerHeight;",
                Vec::new(),
            )
            .await
            .as_u64()
            .and_then(|h| u32::try_from(h).ok())
            .unwrap_or(0);
        driver
            .set_window_rect(0, 0, width, height.clamp(400, 12_000) + chrome)
            .await
            .expect("window size");
        let png = driver.screenshot_as_png().await.expect("screenshot");
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("screenshot directory");
        }
        std::fs::write(path, png).expect("screenshot written");
        // The viewport the screenshot was taken at.
        let viewport = self.run("return window.innerWidth;", Vec::new()).await;
        assert_eq!(viewport, json!(width), "the page is shown at {width} px");
    }

    /// Ends the session and stops the browser and its driver.
    pub async fn quit(mut self) {
        if let Some(driver) = self.driver.take() {
            let _ = driver.quit().await;
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // The driver and the browser it started share the driver's process group.
        if let Ok(group) = i32::try_from(self.chromedriver.id()) {
            // `--`: without it, some `kill`s read `-<pid>` as an option (`-1`: everything).
            let _ = Command::new("kill")
                .args(["-s", "KILL", "--", &format!("-{group}")])
                .stderr(Stdio::null())
                .status();
        }
        let _ = self.chromedriver.kill();
        let _ = self.chromedriver.wait();
    }
}

/// `text` as an XPath string literal.
fn xpath_literal(text: &str) -> String {
    if !text.contains('\'') {
        return format!("'{text}'");
    }
    let parts: Vec<String> = text.split('\'').map(|part| format!("'{part}'")).collect();
    format!("concat({})", parts.join(", \"'\", "))
}
