//! STUB: replaced by the Box2D 2.3 subset.
