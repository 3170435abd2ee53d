//! Two API nodes on one PostgreSQL + Redis share boards, bans and deletions at once.
use super::{ranked, ranking, score, submit};
use crate::helpers::{services_backend, spawn_app, spawn_on, Fetch};
use reqwest::Method;
use serde_json::json;

#[tokio::test]
async fn two_nodes_share_one_board() {
    if !services_backend() {
        return;
    }
    let first = spawn_app().await;
    let second = spawn_on(first.backend.clone(), |_| {}).await;
    let (_, _, key) = first.game_with_key().await;
    score(&first, &key, "cluster", "ann", 10.0).await;
    score(&second, &key, "cluster", "bob", 20.0).await;
    let kept = score(&second, &key, "cluster", "ann", 5.0).await;
    assert_eq!(kept["updated"], false);
    assert_eq!(
        ranking(&first, &key, "cluster").await,
        ranked(&[("bob", 20.0), ("ann", 10.0)])
    );
    assert_eq!(
        ranking(&second, &key, "cluster").await,
        ranked(&[("bob", 20.0), ("ann", 10.0)])
    );

    // Each node now holds the page it rendered; a change made through the other node shows
    // on the next read all the same.
    score(&second, &key, "cluster", "ann", 30.0).await;
    assert_eq!(
        ranking(&first, &key, "cluster").await,
        ranked(&[("ann", 30.0), ("bob", 20.0)])
    );
}

#[tokio::test]
async fn a_ban_or_a_deletion_on_one_node_applies_at_once_on_another() {
    if !services_backend() {
        return;
    }
    let first = spawn_app().await;
    let second = spawn_on(first.backend.clone(), |_| {}).await;
    let (token, game_id, key) = first.game_with_key().await;
    // The second node caches the board's definition from these submissions on.
    score(&second, &key, "shared", "cheat", 10.0).await;
    score(&second, &key, "shared", "fair", 20.0).await;

    let base = format!("/v1/games/{game_id}/leaderboards/shared/entries");
    first
        .dashboard(Method::POST, &format!("{base}/cheat/ban"), &token)
        .expect_status(200)
        .await;
    let (status, refused) = submit(
        &second,
        &key,
        json!({ "board_name": "shared", "player_id": "cheat", "score": 99.0 }),
    )
    .await;
    assert_eq!(
        status, 403,
        "the ban list is never read from a cache: {refused}"
    );
    assert_eq!(
        ranking(&second, &key, "shared").await,
        ranked(&[("fair", 20.0)])
    );

    // Deleted through the first node while the second still holds the definition: the next
    // score through the second node creates the board anew, with only that score on it.
    first
        .dashboard(
            Method::DELETE,
            &format!("/v1/games/{game_id}/leaderboards/shared"),
            &token,
        )
        .expect_status(204)
        .await;
    let fresh = score(&second, &key, "shared", "newcomer", 5.0).await;
    assert_eq!(
        (fresh["rank"].clone(), fresh["updated"].clone()),
        (json!(1), json!(true))
    );
    assert_eq!(
        ranking(&first, &key, "shared").await,
        ranked(&[("newcomer", 5.0)])
    );
}
