"""Tests of matchdb.core."""
