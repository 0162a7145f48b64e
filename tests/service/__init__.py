"""Tests of matchdb.service."""
