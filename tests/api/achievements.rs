//! Black-box tests of achievements.
