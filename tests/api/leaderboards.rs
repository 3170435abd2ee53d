//! Black-box tests of leaderboards.
