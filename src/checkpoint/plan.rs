//! The restoration plan.
