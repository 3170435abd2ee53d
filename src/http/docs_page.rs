//! `/docs`: the Swagger UI page that poem-openapi renders, one HTML page with its scripts and
//! styles inline, served with a Content-Security-Policy that lets exactly those scripts run
//! (by their SHA-256) and the page talk to its own origin only, and that no other site may
//! frame. Without it the page was the one HTML page of the node's origin with no policy: a
//! script injected into it could call the API with a dashboard user's stored token.
use base64::Engine;
use poem::{
    http::{header, HeaderValue},
    Endpoint, EndpointExt, IntoResponse, Response,
};
use sha2::{Digest, Sha256};
use std::sync::OnceLock;

/// The policy for a page whose inline scripts are those of `html`.
pub fn policy_for(html: &str) -> String {
    let hashes: Vec<String> = inline_scripts(html)
        .map(|script| {
            let digest = Sha256::digest(script.as_bytes());
            format!(
                "'sha256-{}'",
                base64::engine::general_purpose::STANDARD.encode(digest)
            )
        })
        .collect();
    format!(
        "default-src 'none'; script-src {}; style-src 'unsafe-inline'; img-src 'self' data:; \
         font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; \
         form-action 'none'",
        hashes.join(" ")
    )
}

/// The text of each `<script>` element of `html`, as a browser's parser ends it: at the first
/// `</script>` after its opening tag (a script's own text cannot hold one).
fn inline_scripts(html: &str) -> impl Iterator<Item = &str> {
    let mut rest = html;
    std::iter::from_fn(move || {
        let open = rest.find("<script")?;
        let content = open + rest[open..].find('>')? + 1;
        let close = content + rest[content..].find("</script>")?;
        let script = &rest[content..close];
        rest = &rest[close + "</script>".len()..];
        Some(script)
    })
}

/// Serves `docs` with the policy of its page (worked out on the first request: the page is
/// the same for the life of the process) and the headers the dashboard's pages have.
pub fn protect<E: Endpoint + 'static>(docs: E) -> impl Endpoint<Output = Response> {
    static POLICY: OnceLock<HeaderValue> = OnceLock::new();
    docs.around(|docs, req| async move {
        let response = docs.call(req).await?.into_response();
        if !response.status().is_success() {
            return Ok(response);
        }
        let (mut parts, body) = response.into_parts();
        let html = body.into_string().await?;
        let policy = POLICY.get_or_init(|| {
            HeaderValue::from_str(&policy_for(&html))
                .expect("a policy of hashes is a valid header value")
        });
        let headers = &mut parts.headers;
        headers.insert(header::CONTENT_SECURITY_POLICY, policy.clone());
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        headers.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
        Ok(Response::from_parts(parts, html.into()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_inline_script_is_hashed_and_text_that_looks_like_a_tag_inside_one_is_not() {
        let html = r#"<html><script charset="UTF-8">var re = "<script(?=\s|>";</script>
            <style>b{}</style><script>init()</script></html>"#;
        let scripts: Vec<&str> = inline_scripts(html).collect();
        assert_eq!(scripts, [r#"var re = "<script(?=\s|>";"#, "init()"]);
        let policy = policy_for(html);
        let init = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(b"init()"));
        assert!(policy.contains(&format!("'sha256-{init}'")), "{policy}");
        assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
        assert_eq!(policy.matches("'sha256-").count(), 2, "{policy}");
    }
}
