"""Helpers shared by the test suite: payload and transcript builders, a guard driver."""
