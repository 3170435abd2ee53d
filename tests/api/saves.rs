//! Black-box tests of saves.
