"""Thin RPC handlers of accounts_app, one module per TL namespace."""
