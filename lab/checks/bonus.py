"""The bonus step's checks, for a folder with bonus_server.py: the spec's version negotiation.

The bonus server is judged over stdin/stdout against the reference (solutions/bonus_server.py),
in a session opened with a supported version (a server that keeps the lesson's refusal loses
that rule's check only); while its function is still to write, the given code earns nothing.
Then real clients connect (real_clients.py: the `mcp` SDK in `legacy` and `auto` modes, the
MCP Inspector CLI), only once the stdio session shows a handshake; one that cannot run here
is skipped with the reason (`lab grade --bonus` stops before grading instead).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from lab.checks import check_title, real_clients, reference
from lab.checks.engine import WAITS_FOR, Check, Context, Failed, Probe, Skipped, Waiting, unwritten_task
from lab.checks.server_checks import require_json_rpc_lines
from lab.checks.texts import say
from lab.checks.server_session import PROBE_LIMIT, Transcript, expect_reply, field_of, find, initialize, same, session

BONUS = "bonus_server.py"
NOT_READ = ("client.py", "model.py", "answers.toml")  # by the bonus server (for --watch)
TASKS = {"bonus": {"fr": "bonus : la règle de la spec", "en": "bonus: the spec’s rule"}}
SESSION_LIMIT = PROBE_LIMIT  # seconds for one stdio session (and its timing confirmation), as for the lesson's server
ASKED_VERSIONS = tuple(reference.bonus_versions())
UNKNOWN_VERSION = "1999-01-01"


def request(request_id: str, method: str, params: Any = None) -> dict:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def discover(request_id: str) -> dict:
    # As the SDK's auto mode sends it: the modern revision's fields ride in _meta.
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "lab-check", "version": "1"}}
    return request(request_id, "server/discover", {"_meta": meta})


def session_messages() -> list[dict]:
    return [
        discover("discover-new"),
        initialize("init-known", ASKED_VERSIONS[0]),
        request("list-waiting", "tools/list"),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        request("list-ready", "tools/list"),
        discover("discover-ready"),
        initialize("init-again", ASKED_VERSIONS[0]),
    ]


def stdio_session(context: Context, messages: list[dict]) -> Transcript:
    return session(context, messages, BONUS, partial(reference.reference_replies, server="bonus_server"))


def initialize_probe(request_id: str, version: str) -> Probe:
    return Probe(lambda context: stdio_session(context, [initialize(request_id, version)]), SESSION_LIMIT, NOT_READ)


def handshakes(context: Context, probe: str = "bonus.session", request_id: str = "init-known") -> bool:
    """The stdio session shows a handshake (the reference's version agreed on): worth a real client."""
    transcript: Transcript = context.probe(probe)
    return same(*(field_of(find(replies, request_id), "result.protocolVersion")
                  for replies in (transcript.reference, transcript.replies)))


def no_real_client(context: Context) -> Skipped:
    """No real client ran (no handshake): waiting for the check that shows why, the newest version
    echoed, else server/discover (the one line the session sends before initialize)."""
    echoed = handshakes(context, NEWEST, f"init-{ASKED_VERSIONS[0]}")
    return Skipped(WAITS_FOR, title=check_title(DISCOVER if echoed else ECHOED, context.lang))


def sdk_probe(context: Context) -> dict[str, real_clients.RealClientRun]:
    if not handshakes(context):
        return {}  # the checks that read this are skipped by their prerequisites
    # The auto mode's probe comes first, before initialize: worth running when the new state answers it.
    discover = find(context.probe("bonus.session").replies, "discover-new")
    answered = isinstance(discover, dict) and isinstance(discover.get("error"), dict)
    modes = ("legacy", "auto") if answered else ("legacy",)
    return {run.client: run for run in real_clients.run_sdk(context.folder / BONUS, modes, launch=context.launch,
                                                               lang=context.lang)}


def inspector_probe(context: Context) -> real_clients.RealClientRun | None:
    if not handshakes(context):
        return None
    # A class being graded (`lab grade`) runs only the Inspector found before grading started;
    # `lab check --bonus` may fetch it through npx.
    return real_clients.run_inspector(context.folder / BONUS, fetch=not context.launch.grading, launch=context.launch,
                                      lang=context.lang)


PROBES = {
    "bonus.session": Probe(lambda context: stdio_session(context, session_messages()), SESSION_LIMIT, NOT_READ),
    "bonus.unknown": initialize_probe("init-unknown", UNKNOWN_VERSION),
    **{f"bonus.version.{version}": initialize_probe(f"init-{version}", version) for version in ASKED_VERSIONS},
    # The real-client probes first wait for the stdio session (SESSION_LIMIT).
    "bonus.sdk": Probe(sdk_probe, SESSION_LIMIT + real_clients.SDK_LIMIT, NOT_READ),
    "bonus.inspector": Probe(inspector_probe, SESSION_LIMIT + real_clients.INSPECTOR_LIMIT + real_clients.FETCH_LIMIT,
                             NOT_READ),
}


def json_rpc_replies(context: Context) -> None:
    transcript: Transcript = context.probe("bonus.session")
    if missing := still_to_write(transcript):  # the given code answers on its own: it earns nothing while unwritten
        raise Waiting(missing, transcript.traceback())
    require_json_rpc_lines(transcript, "bonus")


def still_to_write(transcript: Transcript) -> str:
    """The part the bonus server says is still to write (on stderr, in an error's message), or ""."""
    said = [transcript.run.stderr.decode("utf-8", errors="replace")] if transcript.run is not None else []
    said += [str(reply["error"].get("message", "")) for reply in transcript.replies
             if isinstance(reply, dict) and isinstance(reply.get("error"), dict)]
    return unwritten_task("\n".join(said))


def versions_echoed(context: Context) -> None:
    for version in ASKED_VERSIONS:
        silence_said(context.probe(f"bonus.version.{version}"))
        expect_reply(context, f"bonus.version.{version}", f"init-{version}", ("result.protocolVersion",))


def unknown_version_answered(context: Context) -> None:
    silence_said(context.probe("bonus.unknown"))
    expect_reply(context, "bonus.unknown", "init-unknown", ("error", "result.protocolVersion"))


def silence_said(transcript: Transcript) -> None:
    """A session that got no line at all while the server ran on (an endless loop most likely):
    said as the first check says it, not as a missing reply."""
    run = transcript.run
    if run is not None and not transcript.lines and (run.timed_out or run.cpu_exhausted):
        require_json_rpc_lines(transcript, "bonus")


def gate_holds(context: Context) -> None:
    expect_reply(context, "bonus.session", "list-waiting", ("error.code",))
    expect_reply(context, "bonus.session", "list-ready", ("result",))
    expect_reply(context, "bonus.session", "init-again", ("error.code",))


def capabilities_honest(context: Context) -> None:
    expect_reply(context, "bonus.session", "init-known", ("result.capabilities",))
    transcript: Transcript = context.probe("bonus.session")
    reply = find(transcript.replies, "init-known")
    info = field_of(reply, "result.serverInfo")  # what every real client reads, and refuses the handshake without
    if not (isinstance(info, dict) and isinstance(info.get("name"), str) and isinstance(info.get("version"), str)):
        raise Failed(find(transcript.reference, "init-known"), reply, focus=("result.serverInfo",),
                     reason="server.server_info")
    unknown = find(context.probe("bonus.unknown").replies, "init-unknown")
    if isinstance(unknown, dict) and "result" in unknown:  # a refusal is the other check's to judge
        expect_reply(context, "bonus.unknown", "init-unknown", ("result.capabilities",))


def discover_answered(context: Context) -> None:
    transcript: Transcript = context.probe("bonus.session")
    for request_id in ("discover-new", "discover-ready"):
        reply = find(transcript.replies, request_id)
        if not (isinstance(reply, dict) and isinstance(reply.get("error"), dict)):
            expected = find(transcript.reference, request_id)
            actual = reply if isinstance(reply, dict) else "\n".join(transcript.lines) or "—"
            answered = isinstance(reply, dict) and "result" in reply  # taken for a server of the new revision
            raise Failed(expected, actual, reason="bonus.discover_result" if answered else "bonus.discover_silent",
                         fields={"what": transcript.request(request_id)})


def sdk_connects(mode: str, context: Context) -> None:
    client_connects(context.probe("bonus.sdk").get(f"sdk-{mode}"), context, with_version=True)


def inspector_lists_tools(context: Context) -> None:
    client_connects(context.probe("bonus.inspector"), context, with_version=False)  # the Inspector CLI does not say it


def client_connects(run: real_clients.RealClientRun | None, context: Context, with_version: bool) -> None:
    """What the client should see: the tools of the reference's tools/list, and the version the
    reference agrees on; no run at all when no real client was started (no handshake)."""
    if run is None:
        raise no_real_client(context)
    reference = context.probe("bonus.session").reference
    want: dict[str, Any] = {"tools": find(reference, "list-ready")["result"]["tools"]}
    actual: dict[str, Any] = {"tools": run.tools}
    if with_version:  # the SDK offers the newest version: the reference's newest
        want["version"] = find(reference, "init-known")["result"]["protocolVersion"]
        actual["version"] = run.version
    # The client's reason is a key (lab/checks/real_clients.py): written here, in the run's language.
    why = {"reason": run.reason, "fields": run.fields}
    if run.outcome == real_clients.UNAVAILABLE:
        raise Skipped("bonus.client_unavailable", why=why)
    if run.outcome != real_clients.CONNECTED:
        stdio: Transcript = context.probe("bonus.session")  # replies held back until the input closed: the cause
        held_back = stdio.late is not None and len(stdio.lines) > stdio.lines_in_time
        raise Failed(want, say(context.lang, run.reason, **run.fields),
                     reason="bonus.replies_held_back" if held_back else "bonus.client_failed", fields={"why": why})
    if not same(actual, want):
        raise Failed(want, actual, reason="bonus.client_sees_wrong")


START = "bonus.json-rpc-replies"
ECHOED = "bonus.supported-version-echoed"
DISCOVER = "bonus.discover-answered"
NEWEST = f"bonus.version.{ASKED_VERSIONS[0]}"
STDIO = ("bonus.session", *(f"bonus.version.{version}" for version in ASKED_VERSIONS))
SDK = ("bonus.session", NEWEST, "bonus.sdk")
bonus_check = partial(Check, task="bonus", applies_when=BONUS, needs=(START,))

CHECKS = [
    bonus_check(id=START, needs=(), probes=("bonus.session",), run=json_rpc_replies, cause=True,
                fr=("Le serveur bonus démarre et répond en JSON-RPC 2.0",
                    "Comme le serveur de la leçon : une ligne JSON-RPC par réponse ; faites d’abord passer les vérifications du serveur."),
                en=("The bonus server starts and answers in JSON-RPC 2.0",
                    "Like the lesson's server: one JSON-RPC line per reply; make the server's checks pass first.")),
    bonus_check(id=ECHOED, points=2, probes=STDIO, run=versions_echoed,
                words={"oldest": ASKED_VERSIONS[-1], "newest": ASKED_VERSIONS[0]},
                fr=("Une version prise en charge est renvoyée telle quelle ({oldest} à {newest})",
                    "Si la version demandée est dans supported, renvoyez-la (la spec : le serveur DOIT répondre la même)."),
                en=("A supported version is echoed as it is ({oldest} to {newest})",
                    "When the requested version is in supported, return it (the spec: the server MUST answer the same one).")),
    bonus_check(id="bonus.unknown-version-latest", points=2, probes=("bonus.unknown",), run=unknown_version_answered,
                fr=("Une version inconnue reçoit un résultat avec la dernière version prise en charge",
                    "La règle de la spec : ne refusez plus ; répondez la version la plus récente de supported (la première)."),
                en=("An unknown version gets a result with the latest supported version",
                    "The spec's rule: do not refuse any more; answer the latest version in supported (the first one).")),
    bonus_check(id="bonus.gate-still-holds", probes=("bonus.session",), run=gate_holds,
                fr=("Les règles des états tiennent toujours (attente, prêt, second initialize)",
                    "Seule la négociation change : ce que chaque état accepte, et ce qui le fait changer, restent ceux de la leçon."),
                en=("The state rules still hold (waiting, ready, second initialize)",
                    "Only the negotiation changes: what each state accepts, and what changes it, stay the lesson's.")),
    bonus_check(id="bonus.capabilities-honest", probes=("bonus.session", "bonus.unknown"), run=capabilities_honest,
                fr=("Les capacités restent honnêtes : tools seulement, listChanged false ; serverInfo a name et version",
                    "Une annonce est une promesse, avec n’importe quelle version : rien de plus que ce que le serveur sait faire."),
                en=("Capabilities stay honest: tools only, listChanged false; serverInfo has name and version",
                    "An announcement is a promise, whatever the version: nothing more than what the server does.")),
    bonus_check(id=DISCOVER, probes=("bonus.session",), run=discover_answered,
                fr=("server/discover reçoit une réponse d’erreur, jamais le silence",
                    "Une méthode inconnue reçoit toujours une erreur (-32600 avant initialize, -32601 ensuite)."),
                en=("server/discover gets an error reply, never silence",
                    "An unknown method always gets an error (-32600 before initialize, -32601 after).")),
    bonus_check(id="bonus.sdk-legacy", points=2, probes=SDK, run=lambda context: sdk_connects("legacy", context),
                fr=("Le client du SDK mcp (mode legacy) se connecte et ne voit aucun outil",
                    "Le SDK propose 2025-11-25 dans initialize : acceptez-la, puis tools/list une fois prêt."),
                en=("The mcp SDK client (legacy mode) connects and sees no tools",
                    "The SDK offers 2025-11-25 in initialize: accept it, then tools/list once ready.")),
    bonus_check(id="bonus.sdk-auto", points=2, needs=(START, DISCOVER), probes=SDK, run=lambda context: sdk_connects("auto", context),
                fr=("Le client du SDK mcp (mode auto : server/discover d’abord) se connecte et ne voit aucun outil",
                    "En mode auto, le SDK sonde server/discover ; sur une erreur, il revient à initialize."),
                en=("The mcp SDK client (auto mode: server/discover first) connects and sees no tools",
                    "In auto mode the SDK probes server/discover; on an error it falls back to initialize.")),
    bonus_check(id="bonus.inspector", probes=("bonus.session", NEWEST, "bonus.inspector"), run=inspector_lists_tools,
                fr=('L’Inspector MCP (CLI, par npx) obtient {{"tools": []}}',
                    "npx @modelcontextprotocol/inspector --cli python bonus_server.py --method tools/list"),
                en=('The MCP Inspector (CLI, through npx) gets {{"tools": []}}',
                    "npx @modelcontextprotocol/inspector --cli python bonus_server.py --method tools/list")),
]

# Why a check failed, by key (lab/checks/texts.py `say`), in both languages with the same fields.
REASONS = {
    "fr": {
        # Why a real MCP client (lab/checks/real_clients.py) did not connect; `said` is the client's or
        # the server's own words, shown as they are.
        "real.said": "{said}",
        "real.no_answer": "aucune réponse en {seconds:g} s",
        "real.inspector_no_answer": "l’Inspector n’a reçu aucune réponse en {seconds:g} s",
        "real.sdk_missing": "le SDK mcp n’est pas installé ({missing}) : pip install -e '.[test]'",
        "real.sdk_late": "le client du SDK n’a pas fini en {seconds:g} s",
        "real.sdk_stopped": "le client du SDK s’est arrêté avec le code {code}",
        "real.no_npx": "npx n’est pas dans le PATH (Node.js n’est pas installé)",
        "real.not_cached": "{package} n’est pas dans le cache de npx, et cette exécution ne le télécharge pas",
        "real.fetch_late": "npx n’a pas téléchargé et lancé {package} en {seconds:g} s",
        "real.no_json": "l’Inspector n’a affiché aucun JSON : {output}",
        "real.npx_failed": "npx n’a pas pu lancer {package} : {said}",
        "real.mcp_error": "erreur MCP {code} : {message}",
        "real.not_a_file": "{file} n’est pas un fichier ordinaire (un lien ou un dossier) : pas lancé",
        "bonus.discover_silent": "Pas de réponse d’erreur à la requête {what} : un client qui sonde attendrait pour rien.",
        "bonus.discover_result": "La requête {what} a reçu un résultat, pas une erreur : un client qui sonde y voit un "
                                 "serveur de la nouvelle révision (2026-07-28), ce que celui-ci n’est pas.",
        "bonus.client_unavailable": "ignoré : ce client ne peut pas tourner ici ({why})",
        "bonus.client_failed": "Le client n’a pas pu se connecter et lister les outils.",
        "bonus.replies_held_back": "Le client n’a pas pu se connecter : il attend chaque réponse avant d’envoyer la "
                                   "suite, et les réponses de votre serveur ne sont arrivées qu’à la fermeture de son "
                                   "entrée. Après chaque réponse, demandez son envoi (flush).",
        "bonus.client_sees_wrong": "Le client s’est connecté, mais ne voit pas ce qu’il faut.",
    },
    "en": {
        "real.said": "{said}",
        "real.no_answer": "no answer within {seconds:g} s",
        "real.inspector_no_answer": "the Inspector got no answer within {seconds:g} s",
        "real.sdk_missing": "the mcp SDK is not installed ({missing}): pip install -e '.[test]'",
        "real.sdk_late": "the SDK client did not finish within {seconds:g} s",
        "real.sdk_stopped": "the SDK client stopped with code {code}",
        "real.no_npx": "npx is not on PATH (Node.js is not installed)",
        "real.not_cached": "{package} is not in npx's cache, and this run does not fetch it",
        "real.fetch_late": "npx did not fetch and run {package} within {seconds:g} s",
        "real.no_json": "the Inspector printed no JSON: {output}",
        "real.npx_failed": "npx could not run {package}: {said}",
        "real.mcp_error": "MCP error {code}: {message}",
        "real.not_a_file": "{file} is not a regular file (a link or a folder): not started",
        "bonus.discover_silent": "No error reply to the request {what}: a client that probes would wait for nothing.",
        "bonus.discover_result": "The request {what} got a result, not an error: a client that probes takes it for a "
                                 "server of the new revision (2026-07-28), which this one is not.",
        "bonus.client_unavailable": "skipped: this client cannot run here ({why})",
        "bonus.client_failed": "The client could not connect and list the tools.",
        "bonus.replies_held_back": "The client could not connect: it waits for each reply before it sends the next "
                                   "line, and your server's replies came only when its input closed. After each "
                                   "reply, ask for it to be sent (flush).",
        "bonus.client_sees_wrong": "The client connected, but does not see what it should.",
    },
}
