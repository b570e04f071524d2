"""The bonus server: the lesson's server with the spec's version negotiation.

The lesson's server refuses a version it does not know (-32602). Real clients of
today (the official `mcp` Python SDK, the MCP Inspector) offer 2025-11-25, so they
cannot connect to it. The spec (revision 2025-11-25, basic/lifecycle) says more:

    If the server supports the requested protocol version, it MUST respond with the
    same version. Otherwise, the server MUST respond with another protocol version
    it supports. This SHOULD be the latest version supported by the server.

Then the client decides: it goes on, or it disconnects if it does not speak that
version. Everything else is the lesson's server, reused as is (not copied): the
state gate, honest capabilities, and an error reply for every unknown method, so a
client that probes `server/discover` first (revision 2026-07-28) never waits for
an answer that does not come.

Standard library only: run it as `python bonus_server.py`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Optional

# The server.py beside this file, whichever folder it sits in (solutions/ or exercises/).
sys.path.insert(0, str(Path(__file__).resolve().parent))

from server import Session, language, serve  # noqa: E402

# The handshake-era revisions of MCP, newest first. Revision 2026-07-28 replaced the
# handshake with `server/discover`; it is not a version `initialize` can agree on.
HANDSHAKE_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]


# ---------------------------------------------------------------- bonus
# The spec's negotiation: one small pure function, given to the lesson's Session.


def spec_negotiation(requested: Any, supported: list) -> Optional[str]:
    """The requested version if we speak it; otherwise the latest one we speak.

    It never refuses, so it never returns None: the client, not the server, decides
    whether an older version is good enough. `supported` is newest first.
    """
    # BEGIN SOLUTION bonus
    # fr: renvoyez la version demandée si elle est dans supported, sinon la plus récente de
    # fr: supported (la première) : ne refusez plus, le client décidera.
    # en: return the requested version if it is in supported, else the latest one in supported
    # en: (the first one): do not refuse any more, the client will decide.
    return requested if requested in supported else supported[0]
    # END SOLUTION


def make_session(lang: str = "fr") -> Session:
    return Session(versions=HANDSHAKE_VERSIONS, negotiate=spec_negotiation, lang=lang)


if __name__ == "__main__":
    serve(make_session(language()))
