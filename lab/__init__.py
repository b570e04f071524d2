"""The MCP handshake lab: run the lesson's scenario, check a student's work, grade a class."""

__version__ = "0.1.0"
