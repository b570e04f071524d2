"""The server's checks, judged over stdin/stdout only (see server_session.py).

Most checks are one row of REPLY_RULES: "the reply to this request agrees with the
reference server's on these fields". The few others are small functions.
"""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import Any

from lab.checks.engine import Check, Context, Failed
from lab.checks.server_session import PROBES, SERVER_CPU, Transcript, expect_reply, same  # noqa: F401 (PROBES is read by the registry)

STARTS = "server.json-rpc-replies"


def json_rpc_replies(context: Context) -> None:
    transcript: Transcript = context.probe("server.scenario")
    if transcript.run is None:
        raise Failed("server.py", "—", fr="Il n’y a pas de fichier server.py.", en="There is no server.py file.")
    require_json_rpc_lines(transcript, ("Le serveur", "The server"))


def require_json_rpc_lines(transcript: Transcript, who: tuple[str, str]) -> None:
    """Every line the server wrote is a JSON-RPC 2.0 reply; `who` names it (fr, en)."""
    run = transcript.run
    assert run is not None
    if not transcript.lines:
        if run.timed_out:
            why_fr, why_en = f"rien écrit en {run.duration:g} s", f"wrote nothing in {run.duration:g} s"
        elif run.cpu_exhausted:
            why_fr, why_en = (f"utilisé tout son temps de calcul ({SERVER_CPU} s de CPU) sans rien écrire, "
                              "une boucle sans fin sans doute",
                              f"used up its CPU time ({SERVER_CPU} s) without writing, an endless loop most likely")
        else:
            why_fr, why_en = f"arrêté (code {run.code}) sans rien écrire", f"stopped (code {run.code}) without writing"
        raise Failed(transcript.reference[0], "—", fr=f"{who[0]} a {why_fr}.", en=f"{who[1]} {why_en}.",
                     output=run.stderr_tail())
    for line, reply in zip(transcript.lines, transcript.replies):
        problem = shape_problem(reply)
        if problem:
            raise Failed('{"jsonrpc": "2.0", "id": …, "result": …}  |  {"jsonrpc": "2.0", "id": …, "error": {"code": …, "message": …}}',
                         line, fr=f"Ligne mal formée : {problem[0]}.", en=f"Malformed line: {problem[1]}.",
                         output=run.stderr_tail())


def shape_problem(reply: Any) -> tuple[str, str] | None:
    if not isinstance(reply, dict):
        return "ce n’est pas un objet JSON", "it is not a JSON object"
    if reply.get("jsonrpc") != "2.0":
        return "\"jsonrpc\": \"2.0\" manque", "\"jsonrpc\": \"2.0\" is missing"
    if "id" not in reply:
        return "pas d’id", "no id"
    if ("result" in reply) == ("error" in reply):
        return "il faut soit result, soit error", "it needs either result or error"
    error = reply.get("error", {})
    if "error" in reply and not (isinstance(error, dict) and type(error.get("code")) is int
                                 and isinstance(error.get("message"), str)):
        return "error doit avoir code (entier) et message (texte)", "error needs code (an integer) and message (a string)"
    return None


def reply_ids(context: Context) -> None:
    scenario: Transcript = context.probe("server.scenario")
    got = [reply.get("id") if isinstance(reply, dict) else None for reply in scenario.replies]
    want = [reply["id"] for reply in scenario.reference]
    if not same(got[: len(want)], want):
        raise Failed(want, got, fr="Les ids des réponses ne sont pas ceux des requêtes, dans leur ordre.",
                     en="The replies' ids are not the requests' ids, in their order.")
    rules: Transcript = context.probe("server.rules")
    for reference in rules.reference:
        if reference["id"] is not None and not any(
            isinstance(reply, dict) and same(reply.get("id"), reference["id"]) for reply in rules.replies
        ):
            request_id = reference["id"]
            raise Failed(request_id, [r.get("id") for r in rules.replies if isinstance(r, dict)],
                         fr=f"Aucune réponse ne porte l’id {rules.request(request_id)}, tel quel.",
                         en=f"No reply carries the id of {rules.request(request_id)}, as it was sent.")


def notifications_unanswered(context: Context) -> None:
    for probe in ("server.scenario", "server.rules"):
        transcript: Transcript = context.probe(probe)
        owed = Counter(repr(reply.get("id")) for reply in transcript.reference)  # repr: 1 and true differ
        extra = []
        for reply in transcript.replies:
            key = repr(reply.get("id")) if isinstance(reply, dict) else ""
            if owed[key] > 0:
                owed[key] -= 1
            else:
                extra.append(reply)
        if extra:
            raise Failed(len(transcript.reference), len(transcript.replies),
                         fr=f"{len(extra)} réponse(s) de trop, par exemple : {extra[0]}",
                         en=f"{len(extra)} reply(ies) too many, for example: {extra[0]}")


def parse_error(context: Context) -> None:
    expect_reply(context, "server.rules", None, ("error.code", "id"))
    expect_reply(context, "server.rules", "after-bad-json", ())  # still there: any reply will do


def exits_at_eof(context: Context) -> None:
    transcript: Transcript = context.probe("server.scenario")
    run = transcript.run
    assert run is not None  # needs STARTS
    if run.timed_out:
        raise Failed("exit code 0", f"{run.duration:g} s",
                     fr="Le serveur tourne encore alors que son entrée est fermée.",
                     en="The server still runs although its input is closed.")
    if run.cpu_exhausted:
        raise Failed("exit code 0", f"{SERVER_CPU} s CPU",
                     fr=f"Le serveur a utilisé tout son temps de calcul ({SERVER_CPU} s de CPU) au lieu de s’arrêter : "
                        "une boucle sans fin ?",
                     en=f"The server used up its CPU time ({SERVER_CPU} s) instead of stopping: an endless loop?",
                     output=run.stderr_tail())
    if run.code != 0:
        raise Failed(0, run.code, fr=f"Le serveur s’est arrêté avec le code {run.code}.",
                     en=f"The server stopped with code {run.code}.", output=run.stderr_tail())


def replies_agree(rows: tuple[tuple[str, Any, tuple[str, ...]], ...], context: Context) -> None:
    for probe, request_id, paths in rows:
        expect_reply(context, probe, request_id, paths)


S, R = "server.scenario", "server.rules"

# id, task, (probe, request id, fields)..., title fr/en, hint fr/en
REPLY_RULES = [
    ("server.refuses-unknown-version", "server-2", ((S, 2, ("error.code",)),),
     "Réponse 2 : une version inconnue est refusée avec -32602",
     "Reply 2: an unknown version is refused with -32602",
     "Si la version demandée n’est pas dans VERSIONS, levez l’erreur -32602 (partie 2).",
     "When the requested version is not in VERSIONS, raise error -32602 (part 2)."),
    ("server.error-data", "server-2", ((S, 2, ("error.data",)),),
     "Réponse 2 : error.data donne la version demandée et la liste acceptée",
     "Reply 2: error.data gives the requested version and the supported list",
     "data = {\"requested\": <la version demandée>, \"supported\": VERSIONS}, pour que le client réessaie.",
     "data = {\"requested\": <the requested version>, \"supported\": VERSIONS}, so the client can retry."),
    ("server.accepts-known-version", "server-2",
     ((S, 3, ("result.protocolVersion",)), (R, "init-2025", ("result.protocolVersion",))),
     "Réponse 3 : une version connue est acceptée (2024-11-05 comme 2025-03-26)",
     "Reply 3: a known version is accepted (2024-11-05 as well as 2025-03-26)",
     "Répondez avec la version demandée quand elle est dans VERSIONS, dans result.protocolVersion.",
     "Answer with the requested version when it is in VERSIONS, in result.protocolVersion."),
    ("server.capabilities-only-tools", "server-2",
     ((S, 3, ("result.capabilities#keys", "result.serverInfo.name#type", "result.serverInfo.version#type")),),
     "Réponse 3 : seule la capacité tools est annoncée, avec serverInfo",
     "Reply 3: only the tools capability is announced, with serverInfo",
     "Une annonce est une promesse : n’annoncez que tools, que ce serveur sait faire ; serverInfo a name et version.",
     "An announcement is a promise: announce only tools, which this server implements; serverInfo has name and version."),
    ("server.list-changed-false", "server-2", ((S, 3, ("result.capabilities.tools.listChanged",)),),
     "Réponse 3 : listChanged est false", "Reply 3: listChanged is false",
     "Ce serveur ne prévient jamais quand sa liste change : il dit listChanged: false.",
     "This server never says when its list changes: it says listChanged: false."),
    ("server.gate-before-initialize", "server-3", ((S, 1, ("error.code",)),),
     "Réponse 1 : tools/list avant initialize reçoit -32600",
     "Reply 1: tools/list before initialize gets -32600",
     "Dans l’état nouveau, seules initialize et ping passent la porte ; le reste reçoit -32600.",
     "In the new state only initialize and ping pass the gate; everything else gets -32600."),
    ("server.gate-while-waiting", "server-3", ((S, 4, ("error.code",)),),
     "Réponse 4 : tools/list avant la notification reçoit encore -32600",
     "Reply 4: tools/list before the notification still gets -32600",
     "initialize mène à l’état attente, pas prêt : seule notifications/initialized mène à prêt.",
     "initialize leads to the waiting state, not ready: only notifications/initialized leads to ready."),
    ("server.tools-list-when-ready", "server-3", ((S, 5, ("result",)),),
     "Réponse 5 : tools/list une fois prêt renvoie une liste vide",
     "Reply 5: tools/list once ready returns an empty list",
     "Dans l’état prêt, tools/list répond {\"tools\": []}.", "In the ready state, tools/list answers {\"tools\": []}."),
    ("server.unknown-method", "server-3", ((S, 6, ("error.code",)),),
     "Réponse 6 : une méthode jamais annoncée reçoit -32601",
     "Reply 6: a method never announced gets -32601",
     "Après la porte d’état, une méthode sans gestionnaire reçoit -32601 (méthode inconnue).",
     "After the state gate, a method with no handler gets -32601 (method not found)."),
    ("server.ping-every-state", "server-3",
     ((R, "ping-new", ("result",)), (R, "ping-waiting", ("result",)), (R, "ping-ready", ("result",))),
     "ping reçoit {} dans chaque état", "ping gets {} in every state",
     "ping passe la porte dans tous les états : nouveau, attente et prêt.",
     "ping passes the gate in every state: new, waiting and ready."),
    ("server.second-initialize", "server-3",
     ((R, "init-again-waiting", ("error.code",)), (R, "init-again-ready", ("error.code",))),
     "Un second initialize reçoit -32600", "A second initialize gets -32600",
     "initialize n’est accepté que dans l’état nouveau ; ensuite : -32600, « Déjà initialisé ».",
     "initialize is accepted only in the new state; after that: -32600, “Already initialized”."),
    ("server.id-zero", "server-3", ((R, 0, ("result",)),),
     "Une requête d’id 0 reçoit sa réponse", "A request with id 0 gets its reply",
     "Une notification est un message sans clé id ; 0 est un id comme un autre (ne testez pas `if id:`).",
     "A notification is a message with no id key; 0 is an id like any other (do not test `if id:`)."),
]

FUNCTION_CHECKS = [
    (STARTS, "server-1", json_rpc_replies,
     "Le serveur démarre et répond en JSON-RPC 2.0, un objet par ligne",
     "The server starts and answers in JSON-RPC 2.0, one object per line",
     "Chaque réponse : {\"jsonrpc\": \"2.0\", \"id\": …} plus result, ou error {code, message} (partie 1).",
     "Each reply: {\"jsonrpc\": \"2.0\", \"id\": …} plus result, or error {code, message} (part 1)."),
    ("server.reply-ids", "server-1", reply_ids,
     "Chaque réponse porte l’id de sa requête", "Each reply carries its request's id",
     "Recopiez l’id de la requête tel quel (1 reste un nombre, \"a\" une chaîne).",
     "Copy the request's id as it is (1 stays a number, \"a\" a string)."),
    ("server.notifications-unanswered", "server-1", notifications_unanswered,
     "Les notifications ne reçoivent aucune réponse", "Notifications get no reply",
     "Un message sans id est une notification : changez l’état s’il le faut, mais n’écrivez rien.",
     "A message with no id is a notification: change the state if needed, but write nothing."),
    ("server.parse-error", "server-1", parse_error,
     "Une ligne qui n’est pas du JSON reçoit -32700 avec id null, et le serveur continue",
     "A line that is not JSON gets -32700 with id null, and the server goes on",
     "Attrapez l’erreur de json.loads : répondez -32700 avec \"id\": null, puis lisez la ligne suivante.",
     "Catch json.loads's error: answer -32700 with \"id\": null, then read the next line."),
    ("server.exits-at-eof", "server-1", exits_at_eof,
     "Le serveur s’arrête (code 0) quand son entrée se ferme",
     "The server stops (code 0) when its input closes",
     "À la fin de l’entrée, la boucle de lecture se termine et le programme aussi.",
     "At the end of input, the reading loop ends and so does the program."),
]

# The order of the report: each part's checks in the order of the lesson's tables.
# Part 1 (the messages) also covers what the given loop and routing do once replies can be built.
ORDER = [
    STARTS, "server.reply-ids", "server.notifications-unanswered", "server.parse-error", "server.exits-at-eof",
    "server.refuses-unknown-version", "server.error-data", "server.accepts-known-version",
    "server.capabilities-only-tools", "server.list-changed-false",
    "server.gate-before-initialize", "server.gate-while-waiting", "server.tools-list-when-ready",
    "server.unknown-method", "server.ping-every-state", "server.second-initialize", "server.id-zero",
]


def build() -> list[Check]:
    checks = {}
    for check_id, task, run, *texts in FUNCTION_CHECKS:
        checks[check_id] = Check(check_id, task, {"fr": texts[0], "en": texts[1]}, {"fr": texts[2], "en": texts[3]},
                                 run, probes=(S, R), needs=() if check_id == STARTS else (STARTS,))
    for check_id, task, rows, *texts in REPLY_RULES:
        checks[check_id] = Check(check_id, task, {"fr": texts[0], "en": texts[1]}, {"fr": texts[2], "en": texts[3]},
                                 partial(replies_agree, rows), probes=(S, R), needs=(STARTS,))
    assert sorted(checks) == sorted(ORDER), "every server check has its place in ORDER"
    return [checks[check_id] for check_id in ORDER]


CHECKS = build()
