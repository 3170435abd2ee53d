//! Black-box tests of presence.
