"""Tests of matchdb.storage."""
