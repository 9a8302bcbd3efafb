"""The SSH front door: transport, Textual driver, accounts and storage."""
