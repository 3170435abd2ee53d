//! `playtrace admin`: an operator with shell access lets a locked-out admin back in without
//! SMTP (issue 27). Each command runs the real binary against the test's database, and its
//! effect is checked over HTTP.
use crate::helpers::{spawn_app, Fetch, TestApp, PASSWORD};
use reqwest::Method;
use serde_json::{json, Value};
use std::{process::Stdio, time::Duration};
use tokio::io::AsyncWriteExt;

/// What one run of the binary left: exit status, standard output and standard error.
struct Run {
    success: bool,
    stdout: String,
    stderr: String,
}

/// Runs `playtrace admin <args>` on the app's database, with `stdin` as its standard input.
async fn admin(app: &TestApp, args: &[&str], stdin: &str) -> Run {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_playtrace"))
        .arg("admin")
        .args(args)
        .arg("--database-url")
        .arg(&app.backend.database_url)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the binary starts");
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).await.unwrap();
    drop(input);
    let output = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("the command ends")
        .unwrap();
    Run {
        success: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

async fn sign_in(app: &TestApp, email: &str, password: &str) -> (u16, Value) {
    app.call_json(
        Method::POST,
        "/v1/auth/login",
        json!({ "email": email, "password": password }),
    )
    .await
}

/// Asks until `check` holds on `/v1/auth/me` (nodes cache an account's standing for up to
/// 2 seconds), and returns the last answer.
async fn me_until(app: &TestApp, token: &str, check: impl Fn(u16, &Value) -> bool) -> (u16, Value) {
    let mut answer = (0, Value::Null);
    for _ in 0..40 {
        answer = app
            .dashboard(Method::GET, "/v1/auth/me", token)
            .fetch()
            .await;
        if check(answer.0, &answer.1) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    answer
}

#[tokio::test]
async fn an_operator_unlocks_an_address_and_resets_a_password() {
    let app = spawn_app().await;
    app.register("first-admin@studio.test").await;
    let email = "locked-out@studio.test";
    let old_token = app.register(email).await;
    for _ in 0..5 {
        sign_in(&app, email, "not the password at all").await;
    }
    let (status, body) = sign_in(&app, email, PASSWORD).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["code"], "ACCOUNT_LOCKED");

    // Unlock: the right password works again at once; any case of the address is the address.
    let run = admin(&app, &["unlock", "Locked-Out@Studio.test"], "").await;
    assert!(run.success, "{}", run.stderr);
    assert!(run.stdout.contains(email), "{}", run.stdout);
    let (status, body) = sign_in(&app, email, PASSWORD).await;
    assert_eq!(status, 200, "{body}");

    // Reset: the new password comes on standard input and is printed nowhere.
    let new_password = "violet lantern harbour quietly";
    let run = admin(
        &app,
        &["reset-password", email],
        &format!("{new_password}\n"),
    )
    .await;
    assert!(run.success, "{}", run.stderr);
    assert!(!run.stdout.contains(new_password), "{}", run.stdout);
    assert!(!run.stderr.contains(new_password), "{}", run.stderr);
    let (status, body) = sign_in(&app, email, new_password).await;
    assert_eq!(status, 200, "{body}");
    let (status, _) = sign_in(&app, email, PASSWORD).await;
    assert_eq!(status, 401);
    // Sessions signed in with the old password end, as with a reset by e-mail.
    let (status, body) = me_until(&app, &old_token, |status, _| status == 401).await;
    assert_eq!(status, 401, "{body}");

    // The password rules hold here too, and nothing changes when they refuse.
    let run = admin(&app, &["reset-password", email], "password\n").await;
    assert!(!run.success);
    assert!(run.stderr.contains("too common"), "{}", run.stderr);
    let (status, _) = sign_in(&app, email, new_password).await;
    assert_eq!(status, 200);

    // An address without an account: said so, nonzero exit.
    let run = admin(
        &app,
        &["reset-password", "nobody@studio.test"],
        "a b c d e f g\n",
    )
    .await;
    assert!(!run.success);
    assert!(run.stderr.contains("nobody@studio.test"), "{}", run.stderr);
}

#[tokio::test]
async fn an_operator_makes_and_removes_an_instance_admin() {
    let app = spawn_app().await;
    let first = app.register("first@studio.test").await;
    let second = app.register("second@studio.test").await;
    let (_, me) = me_until(&app, &second, |_, _| true).await;
    assert_eq!(me["is_admin"], false);

    let run = admin(&app, &["make-admin", "second@studio.test"], "").await;
    assert!(run.success, "{}", run.stderr);
    let (_, me) = me_until(&app, &second, |_, me| me["is_admin"] == true).await;
    assert_eq!(me["is_admin"], true, "{me}");
    // The new admin's standing acts: an admin owns games beyond the cap and sets any tier.
    let game_id = app.create_game(&first).await;
    let (status, body) = app
        .dashboard_json(
            Method::PATCH,
            &format!("/v1/games/{game_id}"),
            &second,
            json!({ "tier": "studio" }),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    let run = admin(&app, &["remove-admin", "first@studio.test"], "").await;
    assert!(run.success, "{}", run.stderr);
    let (_, me) = me_until(&app, &first, |_, me| me["is_admin"] == false).await;
    assert_eq!(me["is_admin"], false, "{me}");

    // Removing the last admin is refused: someone must be able to run the instance.
    let run = admin(&app, &["remove-admin", "second@studio.test"], "").await;
    assert!(!run.success);
    assert!(run.stderr.contains("last admin"), "{}", run.stderr);
    let (_, me) = me_until(&app, &second, |_, _| true).await;
    assert_eq!(me["is_admin"], true, "{me}");

    let run = admin(&app, &["make-admin", "nobody@studio.test"], "").await;
    assert!(!run.success);
    assert!(run.stderr.contains("nobody@studio.test"), "{}", run.stderr);
}
