//! Table tests of the classifier.
