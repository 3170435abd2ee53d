//! Event times and purchase amounts outside their bounds are refused and never reach the
//! aggregates.
use super::*;

#[tokio::test]
async fn a_client_timestamp_older_than_a_year_is_refused_and_a_month_old_one_counts_on_its_day() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let now = app.state.now();
    let month_ago = now - Duration::days(30);

    let (status, body) = app
        .game_json(
            Method::POST,
            "/v1/track",
            &key,
            json!({ "event_name": "boot", "session_id": "s", "client_timestamp": "1970-01-01T00:00:00Z" }),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["field"], "client_timestamp");
    assert!(
        body["error"].as_str().unwrap().contains("366 days"),
        "{body}"
    );

    let batch = json!([
        { "event_name": "boot", "session_id": "s", "client_timestamp": month_ago.to_rfc3339() },
        { "event_name": "boot", "session_id": "s", "client_timestamp": (now - Duration::days(400)).to_rfc3339() },
    ]);
    let (status, body) = app.game_json(Method::POST, "/v1/track", &key, batch).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["index"], 1);
    assert_eq!(body["field"], "client_timestamp");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .starts_with("events[1]: client_timestamp"),
        "{body}"
    );

    let (status, _) = app
        .game_json(
            Method::POST,
            "/v1/track",
            &key,
            json!({ "event_name": "boot", "session_id": "s", "client_timestamp": month_ago.to_rfc3339() }),
        )
        .await;
    assert_eq!(status, 202);
    let day = month_ago.date_naive();
    let series = app
        .dashboard(
            Method::GET,
            &format!(
                "/v1/games/{game_id}/metrics?metric=events&from={day}&to={}",
                day + Duration::days(1)
            ),
            &token,
        )
        .expect_status(200)
        .await;
    let values: Vec<f64> = series["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["value"].as_f64().unwrap())
        .collect();
    assert_eq!(
        values,
        [1.0, 0.0],
        "the refused batch stored nothing; the accepted event counts on its day"
    );
}

#[tokio::test]
async fn a_purchase_amount_beyond_a_billion_is_refused_and_cannot_poison_the_hours_revenue() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let purchase = |amount: Value| json!({ "event_name": "purchase", "session_id": "s", "properties": { "amount": amount } });

    for amount in [json!(1e308), json!(-1e308), json!(1_000_000_001)] {
        let (status, body) = app
            .game_json(Method::POST, "/v1/track", &key, purchase(amount.clone()))
            .await;
        assert_eq!(status, 400, "{amount}: {body}");
        assert_eq!(body["field"], "properties.amount", "{body}");
        assert!(
            body["error"].as_str().unwrap().contains("1000000000"),
            "{body}"
        );
    }
    let (status, body) = app
        .game_json(
            Method::POST,
            "/v1/track",
            &key,
            json!([purchase(json!(4.5)), purchase(json!(1e308))]),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["index"], 1);
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .starts_with("events[1]: properties.amount"),
        "{body}"
    );

    // The largest amounts allowed, twice in one hour, and a refund: the hour's sum stays a number.
    for amount in [json!(1_000_000_000), json!(1e9), json!(-2.5)] {
        let (status, body) = app
            .game_json(Method::POST, "/v1/track", &key, purchase(amount))
            .await;
        assert_eq!(status, 202, "{body}");
    }
    let series = app
        .dashboard(
            Method::GET,
            &format!("/v1/games/{game_id}/metrics?metric=revenue"),
            &token,
        )
        .expect_status(200)
        .await;
    let total: f64 = series["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["value"].as_f64().unwrap())
        .sum();
    assert_eq!(total, 1_999_999_997.5, "{series}");
}
