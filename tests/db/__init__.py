"""Tests of matchdb.db."""
