"""Le serveur MCP de la leçon (serveur2.js), en Python : lancez-le avec `python server.py`.
JSON-RPC 2.0 sur stdin et stdout, un objet par ligne ; son état va de "nouveau" à "attente",
puis à "pret". Il tourne une fois ses trois parties écrites (la boucle est la partie 3).
The lesson's MCP server (serveur2.js), in Python: JSON-RPC 2.0 over stdin and stdout, one
object per line. It runs once its three parts are written (the loop is part 3).
"""

import sys

from jsonrpc_lines import InvalidRequest, language, read_message, to_json, todo_line, use_utf8_stdio

VERSIONS = ["2025-03-26", "2024-11-05"]  # les versions qu’il parle, la plus récente d’abord / newest first
SERVER_INFO = {"name": "mcp-handshake-lab", "version": "0.1.0"}

# Les textes envoyés, dans la langue choisie (LAB_LANG=en : l’anglais) / the texts sent, in the run's language.
TEXTS = {
    "fr": {"parse_error": "Erreur d’analyse", "invalid_request": "Requête invalide",
           "not_initialized": "Pas initialisé", "already_initialized": "Déjà initialisé",
           "unsupported_version": "Version non prise en charge", "unknown_method": "Méthode inconnue : "},
    "en": {"parse_error": "Parse error", "invalid_request": "Invalid request", "not_initialized": "Not initialized",
           "already_initialized": "Already initialized", "unsupported_version": "Unsupported protocol version",
           "unknown_method": "Unknown method: "},
}
TEXT = TEXTS[language()]

state = "nouveau"


# ---------------------------------------------------------------- serveur, partie 1 / server, part 1


def send(message: dict) -> None:
    # BEGIN SOLUTION server-1
    # fr: écrivez le message sur une ligne, avec "jsonrpc": "2.0", en JSON (to_json, fourni, écrit
    # fr: comme JSON.stringify), puis demandez son envoi (flush) : sans cela Python garde la
    # fr: ligne, et le client attend chaque réponse.
    # en: write the message on one line, with "jsonrpc": "2.0", as JSON (to_json, given, writes
    # en: as JSON.stringify does), then ask for it to be sent (flush): otherwise Python keeps
    # en: the line, and the client waits for each reply.
    sys.stdout.write(to_json({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()
    # END SOLUTION


def reply(request_id, result: dict) -> None:
    # BEGIN SOLUTION server-1
    # fr: envoyez la réponse qui porte cet id et ce result.
    # en: send the reply that carries this id and this result.
    send({"id": request_id, "result": result})
    # END SOLUTION


def fail(request_id, code: int, text: str, data=None) -> None:
    # BEGIN SOLUTION server-1
    # fr: envoyez l’erreur qui porte cet id : error avec code et message, et data s’il y en a.
    # en: send the error that carries this id: error with code and message, and data if any.
    error = {"code": code, "message": text}
    if data is not None:
        error["data"] = data
    send({"id": request_id, "error": error})
    # END SOLUTION


# ---------------------------------------------------------------- serveur, partie 2 / server, part 2


def initialize(message: dict) -> None:
    global state
    # BEGIN SOLUTION server-2
    # fr: une version que le serveur ne parle pas : erreur -32602, avec en data la version
    # fr: demandée et la liste VERSIONS ({"requested": …, "supported": …} : les noms de la
    # fr: spécification MCP ; la leçon les traduit demandee et acceptees).
    # fr: Sinon : l’état passe à "attente", et le result donne cette version, les capacités
    # fr: (tools seulement, listChanged faux : une annonce est une promesse) et SERVER_INFO.
    # en: a version this server does not speak: error -32602, with as data the version asked
    # en: and the VERSIONS list ({"requested": …, "supported": …}: the MCP specification's
    # en: names; the French lesson translates them demandee and acceptees).
    # en: Otherwise: the state becomes "attente", and the result gives that version, the
    # en: capabilities (tools only, listChanged false: an announcement is a promise), SERVER_INFO.
    requested = message.get("params", {}).get("protocolVersion")
    if requested not in VERSIONS:
        data = {"requested": requested, "supported": VERSIONS}
        return fail(message["id"], -32602, TEXT["unsupported_version"], data)
    state = "attente"
    capabilities = {"tools": {"listChanged": False}}
    result = {"protocolVersion": requested, "capabilities": capabilities, "serverInfo": SERVER_INFO}
    reply(message["id"], result)
    # END SOLUTION


# ---------------------------------------------------------------- serveur, partie 3 / server, part 3


def handle(message: dict) -> None:
    global state
    # BEGIN SOLUTION server-3
    # fr: dans l’ordre de la leçon : une notification (sans id) ne reçoit jamais de réponse,
    # fr: et notifications/initialized fait passer "attente" à "pret" ; ping répond {} dans
    # fr: tout état ; initialize seulement quand "nouveau", sinon -32600 ; -32600 tant que
    # fr: pas "pret" ; tools/list répond la liste vide ; une autre méthode : -32601 avec son nom.
    # en: in the lesson's order: a notification (no id) never gets a reply, and
    # en: notifications/initialized moves "attente" to "pret"; ping answers {} in every state;
    # en: initialize only when "nouveau", else -32600; -32600 until "pret";
    # en: tools/list answers the empty list; any other method: -32601 with its name.
    if "id" not in message:
        if message["method"] == "notifications/initialized" and state == "attente":
            state = "pret"
        return
    method = message["method"]
    if method == "ping":
        return reply(message["id"], {})
    if method == "initialize":
        if state == "nouveau":
            return initialize(message)
        return fail(message["id"], -32600, TEXT["already_initialized"])
    if state != "pret":
        return fail(message["id"], -32600, TEXT["not_initialized"])
    if method == "tools/list":
        return reply(message["id"], {"tools": []})
    fail(message["id"], -32601, TEXT["unknown_method"] + method)
    # END SOLUTION


def on_line(line: str) -> None:
    # BEGIN SOLUTION server-3
    # fr: lisez la ligne avec read_message (fourni). ValueError : ce n’est pas du JSON, erreur
    # fr: -32700 avec l’id null. InvalidRequest : erreur -32600 avec son id. None : rien à faire.
    # fr: Sinon, donnez le message à handle.
    # en: read the line with read_message (given). ValueError: it is not JSON, error -32700
    # en: with a null id. InvalidRequest: error -32600 with its id. None: nothing to do.
    # en: Otherwise, hand the message to handle.
    try:
        message = read_message(line)
    except InvalidRequest as bad:
        return fail(bad.id, -32600, TEXT["invalid_request"])
    except ValueError:
        return fail(None, -32700, TEXT["parse_error"])
    if message is not None:
        handle(message)
    # END SOLUTION


def main() -> None:
    # BEGIN SOLUTION server-3
    # fr: passez chaque ligne de l’entrée standard (sys.stdin) à on_line.
    # en: hand each line of standard input (sys.stdin) to on_line.
    for line in sys.stdin:
        on_line(line)
    # END SOLUTION


if __name__ == "__main__":
    use_utf8_stdio()
    try:
        main()
    except NotImplementedError as part:  # une partie à écrire : une ligne / a part to write: one line
        sys.exit(todo_line(part))
