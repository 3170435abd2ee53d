//! Black-box tests of alerts.
