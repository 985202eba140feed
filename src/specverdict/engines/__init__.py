"""Engines: launching or attaching to a server, the streaming client with timing, and reading
acceptance from what a server exposes."""
