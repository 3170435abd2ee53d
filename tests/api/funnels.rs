//! Black-box tests of funnels.
