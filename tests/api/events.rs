//! Black-box tests of events.
