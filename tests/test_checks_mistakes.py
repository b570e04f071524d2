"""The lesson's classic mistakes, each made in a lesson-style answer written apart from
solutions/ (tests/check_fixtures/lesson_*), are each named by the first ✗ line of
`lab check`, in French and in English; the answers themselves get full marks."""

from __future__ import annotations

import re
import shutil
from concurrent.futures import ThreadPoolExecutor

import click
import pytest

from checks_helpers import FIXTURES, mutate, run_some
from conftest import ROOT
from lab.report import render
from lab.time_limits import CLIENT, SERVER_REPLY
from lab.results import PASSED

FILES = {"server": "server.py", "client": "client.py", "model": "model.py", "answers": "answers.toml"}
SOURCES = {"server": "lesson_server.py", "client": "lesson_client.py", "model": "lesson_model.py",
           "answers": "lesson_answers.toml"}

# name: (file, line in the lesson-style answer, its mistaken replacement, the check the first ✗ names,
#        words of its message in French, in English)
MISTAKES = {
    "the server's reply wraps its result in another": (
        "server", '    envoyer({"id": id, "result": result})\n', '    envoyer({"id": id, "result": {"result": result}})\n',
        "server.json-rpc-replies",
        "Ligne mal formée : son result tient un autre result : reply envoie le result qu’il reçoit tel quel",
        "Malformed line: its result holds another result: reply sends the result it is given as it is"),
    "the server offers its newest version instead of refusing (the spec's rule)": (
        "server", '        return echec(msg["id"], -32602, "Version non prise en charge", {"requested": demandee, '
                  '"supported": VERSIONS})\n', "        demandee = VERSIONS[0]\n", "server.refuses-unknown-version",
        "votre serveur propose la version \"2025-03-26\" au lieu de refuser. C’est la règle de la spécification MCP",
        "your server offers the version \"2025-03-26\" instead of refusing. That is the MCP specification's rule"),
    "the server's gate spells the ready state prêt": (
        "server", '    if etat in ("nouveau", "attente"):\n', '    if etat != "prêt":\n', "server.tools-list-when-ready",
        "et votre serveur écrit « prêt » une fois, « pret » ailleurs : une faute de frappe dans un nom d’état ?",
        "and your server writes “prêt” once, “pret” elsewhere: a typo in a state's name?"),
    "the client asks the model with the capabilities alone": (
        "client", 'q = "En une phrase, dites ce que peut faire un serveur qui annonce ces capacités : " + capacites',
        "q = capacites", "client.asks-model",
        "Le message de l’utilisateur ne porte que les capacités, sans la question",
        "The user's message holds only the capabilities, without the question"),
    "the client's question starts with the sample": (
        "client", 'q = "En une phrase, dites ce que peut faire un serveur qui annonce ces capacités : " + capacites',
        'q = "Il peut lister des outils, et il ne dit pas que sa liste va changer. " + capacites', "client.asks-model",
        "Le message de l’utilisateur commence par l’échantillon au lieu de la question",
        "The user's message starts with the sample instead of the question"),
    "the client gives its question as the sample": (
        "client", '"Il peut lister des outils, et il ne dit pas que sa liste va changer.", 60)',
        '"En une phrase, dites ce que peut faire un serveur qui annonce ces capacités : ", 60)', "client.gives-sample",
        "ask reçoit la question comme échantillon", "ask gets the question as its sample"),
    "the server ends its replies with a raw backslash-n": (
        "server", '    print(json.dumps({"jsonrpc": "2.0", **m}), flush=True)\n',
        '    print(json.dumps({"jsonrpc": "2.0", **m}), end=r"\\n", flush=True)\n', "server.json-rpc-replies",
        "La ligne 1 de la sortie tient plusieurs réponses, séparées par les deux caractères \\n écrits tels quels",
        "Line 1 of the output holds several replies, separated by the two characters \\n written as they are"),
    "the client gives its version as a number": (
        "client", '"clientInfo": {"name": "demo", "version": "0.1"}', '"clientInfo": {"name": "demo", "version": 0.1}',
        "client.initialize-params",
        "params.clientInfo.version vaut 0.1 au lieu d’un texte : comme dans la leçon, name et version s’écrivent entre "
        "guillemets.",
        "params.clientInfo.version is 0.1 instead of a text: as in the lesson, name and version are written in quotes."),
    "the client adds the Answer to a text": (
        "client", 'print("le modèle dit : " + r.text)', 'print("le modèle dit : " + r)', "client.prints-model-answer",
        "Le client s’est arrêté sur une erreur (code 1) après l’appel à ask, avant d’afficher la réponse",
        "The client stopped on an error (code 1) after calling ask, before printing the answer"),
    "the client waits for the server before sending": (
        "client", "for m in scenario:\n    plein =", "serveur.stdout.readline()\nfor m in scenario:\n    plein =",
        "client.seven-messages", f"Le serveur n’a rien reçu du client en {CLIENT:g} s, pas un octet, et le client ne s’est pas "
        "arrêté : ce qu’il écrit reste de son côté tant qu’il n’est pas vidé (flush), à moins qu’il n’attende le "
        "serveur avant d’envoyer.",
        f"The server received nothing from the client in {CLIENT:g} s, not one byte, and the client did not stop: what it "
        "writes stays on its side until it is flushed, unless it waits for the server before sending."),
    "the server compares the state where it means to change it": (
        "server", '    etat = "attente"\n', '    etat == "attente"\n', "server.tools-list-when-ready",
        "Ligne 35 de votre server.py, `etat == \"attente\"` compare l’état à un nom et ne change rien : pour changer "
        "l’état, écrivez un seul = : `etat = \"attente\"`",
        "Line 35 of your server.py, `etat == \"attente\"` compares the state with a name and changes nothing: to "
        "change the state, write a single =: `etat = \"attente\"`"),
    "the server passes over a line that is not JSON without a word": (  # was blamed on flushing, in part 1
        "server", '        echec(None, -32700, "Erreur d’analyse")\n', '        pass\n', "server.parse-error",
        "Votre serveur n’a rien répondu à la ligne « {\"jsonrpc\": \"2.0\", \"id\": 7, \"method\":  », qui n’est pas "
        "du JSON : elle reçoit l’erreur -32700, avec id null, avant la ligne suivante.",
        "Your server answered nothing to the line “{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": ”, which is not "
        "JSON: it gets the error -32700, with id null, before the next line."),
    "the server answers ping with id null": (  # was blamed on notifications, four times
        "server", '        return repondre(msg["id"], {})\n', '        return repondre(None, {})\n', "server.reply-ids",
        "La requête ping envoyée avant initialize n’a pas de réponse à son id, et un result porte id null",
        "The request ping sent before initialize has no reply with its id, and a result carries id null"),
    "the server's -32601 does not name the method": (
        "server", '"Méthode inconnue : " + str(msg.get("method"))', '"Méthode inconnue"', "server.unknown-method",
        "Le message de l’erreur -32601 ne dit pas quelle méthode est inconnue : comme dans la leçon (« Méthode "
        "inconnue : » + la méthode), il nomme « resources/list ».",
        "The -32601 error's message does not say which method is unknown: as in the lesson (\"Unknown method: \" + "
        "the method), it names \"resources/list\"."),
    "the server compares the method with is": (
        "server", 'if msg.get("method") == "notifications/initialized"', 'if msg.get("method") is "notifications/initialized"',
        "server.tools-list-when-ready",
        "`msg.get(\"method\") is \"notifications/initialized\"` compare avec is, qui teste si c’est le même objet, pas le "
        "même texte",
        "`msg.get(\"method\") is \"notifications/initialized\"` compares with is, which tests for the same object, not "
        "the same text"),
    "the client prints the replies on stderr": (
        "client", 'print("<- " + ligne)', 'print("<- " + ligne, file=sys.stderr)', "client.prints-exchange",
        "Les lignes « <- » sont écrites sur stderr (la sortie des erreurs), pas sur la sortie du programme",
        "The \"<- \" lines are written on stderr (the error output), not on the program's output"),
    "the client keeps the reply lines, not the replies read": (
        "client", "    vues.append(json.loads(ligne))\n", "    vues.append(ligne)\n", "client.asks-model",
        "Le client s’est arrêté avant d’appeler ask : les réponses gardées en partie 2 sont des lignes de texte, pas "
        "des réponses lues.",
        "The client stopped before calling ask: the replies part 2 kept are lines of text, not read replies."),
    "the client prints the whole Answer": (
        "client", 'print("le modèle dit : " + r.text)', 'print("le modèle dit :", r)', "client.prints-model-answer",
        "Le client affiche tout l’Answer rendu par ask, pas son texte",
        "The client prints the whole Answer ask returned, not its text"),
    "the helper prints its fallback line on stderr": (
        "model", "({why_no_model(erreur, model_settings())}).\")", "({why_no_model(erreur, model_settings())}).\", "
        "file=__import__(\"sys\").stderr)", "model.refused",
        "ask affiche la ligne « Échantillon enregistré : … » sur la sortie d’erreur (stderr)",
        "ask prints the “Recorded sample: …” line on the error output (stderr)"),
    "the helper returns the model's text alone": (
        "model", "return Answer(reponse.choices[0].message.content, False)", "return reponse.choices[0].message.content",
        "model.answers", "ask renvoie le texte du modèle seul, une chaîne, sans dire d’où il vient",
        "ask returns the model's text alone, a string, without saying where it comes from"),
    "the server never flushes": (
        "server", '    print(json.dumps({"jsonrpc": "2.0", **m}), flush=True)\n',
        '    print(json.dumps({"jsonrpc": "2.0", **m}))\n', "server.flushes-each-reply",
        "les réponses ne sont arrivées qu’à la fermeture de l’entrée", "the replies came only when the input closed"),
    "the server answers a notification": (
        "server", '            etat = "pret"\n        return\n', '            etat = "pret"\n        return repondre(None, {})\n',
        "server.notifications-unanswered",
        "1 réponse(s) qui ne répondent à aucune requête : ce sont des réponses à des notifications, qui n’en reçoivent "
        'pas. Par exemple : {"jsonrpc": "2.0", "id": null, "result": {}}',
        'reply(ies) answering no request: replies to notifications, which get none. For example: '
        '{"jsonrpc": "2.0", "id": null, "result": {}}'),
    "the server crashes on a bad line": (
        "server", "    try:\n        msg = json.loads(ligne)\n    except ValueError:\n        echec(None, -32700, \"Erreur d’analyse\")\n        continue\n",
        "    msg = json.loads(ligne)\n", "server.parse-error",
        "Votre serveur s’est arrêté (code 1) sur une ligne qui n’est pas du JSON, avant la fin de son entrée.",
        "Your server stopped (code 1) on a line that is not JSON, before its input ended."),
    "the server prints debug output on stdout": (
        "server", "for ligne in sys.stdin:\n", "for ligne in sys.stdin:\n    print('reçu :', ligne.strip())\n",
        "server.json-rpc-replies", "les messages de suivi vont sur stderr, print(..., file=sys.stderr)",
        "log messages go to stderr, print(..., file=sys.stderr)"),
    "the server skips the waiting state": (
        "server", '    etat = "attente"\n', '    etat = "pret"\n', "server.gate-while-waiting",
        "Réponse à la requête tools/list (id 4) : un result, là où la leçon attend l’erreur -32600",
        "Reply to the request tools/list (id 4): a result, where the lesson expects the error -32600"),
    "the server echoes any version": (
        "server", "    if demandee not in VERSIONS:\n", "    if False:\n", "server.refuses-unknown-version",
        "Réponse à la requête initialize (id 2) : un result, là où la leçon attend l’erreur -32602",
        "Reply to the request initialize (id 2): a result, where the lesson expects the error -32602"),
    "the server forgets the -32602 data": (
        "server", '"Version non prise en charge", {"requested": demandee, "supported": VERSIONS})',
        '"Version non prise en charge")', "server.error-data",
        "error.data manque", "error.data is missing"),
    "the server looks at the method before the state gate": (
        "server", '    if etat in ("nouveau", "attente"):\n        return echec(msg["id"], -32600, "Pas initialisé")\n',
        '    if msg.get("method") != "tools/list":\n        return echec(msg["id"], -32601, "Méthode inconnue")\n'
        '    if etat in ("nouveau", "attente"):\n        return echec(msg["id"], -32600, "Pas initialisé")\n',
        "server.gate-before-initialize",
        'Réponse à la requête resources/list envoyée avant initialize : error.code vaut -32601 au lieu de -32600.',
        'Reply to the request resources/list sent before initialize: error.code is -32601 instead of -32600.'),
    "any notification makes the server ready": (
        "server", '        if msg.get("method") == "notifications/initialized" and etat == "attente":\n',
        '        if etat == "attente":\n', "server.gate-while-waiting",
        'Réponse à la requête tools/list envoyée pendant l’attente (après initialize, avant la notification) '
        ': un result, là où la leçon attend l’erreur -32600',
        'Reply to the request tools/list sent while waiting (after initialize, before the notification): a '
        'result, where the lesson expects the error -32600'),
    "the initialized notification makes a new server ready": (
        "server", '        if msg.get("method") == "notifications/initialized" and etat == "attente":\n',
        '        if msg.get("method") == "notifications/initialized":\n', "server.gate-before-initialize",
        "Réponse à la requête tools/list envoyée après notifications/initialized, avant tout initialize : un result, "
        "là où la leçon attend l’erreur -32600",
        "Reply to the request tools/list sent after notifications/initialized, before any initialize: a "
        "result, where the lesson expects the error -32600"),
    "the server reuses one dict for every reply": (
        "server", 'def envoyer(m):\n    print(json.dumps({"jsonrpc": "2.0", **m}), flush=True)\n',
        'def envoyer(m, plein={"jsonrpc": "2.0"}):\n    plein.update(m)\n    print(json.dumps(plein), flush=True)\n',
        "server.json-rpc-replies",
        "Ligne mal formée : elle a à la fois result et error, quand une réponse a l’un ou l’autre",
        "Malformed line: it has both result and error, when a reply has one or the other"),
    "the server spells protocolVersion without its capital": (
        "server", '    repondre(msg["id"], {"protocolVersion": demandee,', '    repondre(msg["id"], {"protocolversion": demandee,',
        "server.accepts-known-version",
        "result.protocolVersion manque, mais la réponse a result.protocolversion : une faute de frappe pour protocolVersion ?",
        "result.protocolVersion is missing, but the reply has result.protocolversion: a typo for protocolVersion?"),
    "the server's gate answers with id null": (
        "server", '        return echec(msg["id"], -32600, "Pas initialisé")', '        return echec(None, -32600, "Pas initialisé")',
        "server.reply-ids",
        "La requête tools/list (id 1) n’a pas de réponse à son id, et une erreur -32600 porte id null : seule l’erreur "
        "-32700 (une ligne qui n’est pas du JSON) a id null",
        "The request tools/list (id 1) has no reply with its id, and an error -32600 carries id null: only the -32700 "
        "error (a line that is not JSON) has id null"),
    "the server indents its replies": (
        "server", '    print(json.dumps({"jsonrpc": "2.0", **m}), flush=True)\n',
        '    print(json.dumps({"jsonrpc": "2.0", **m}, indent=2), flush=True)\n', "server.json-rpc-replies",
        "La ligne 1 de la sortie ouvre une réponse qui continue sur les lignes suivantes : le client lit une réponse "
        "par ligne.",
        "Line 1 of the output opens a reply that goes on over the next lines: the client reads one reply per line."),
    "the server misspells a version in its list": (
        "server", 'VERSIONS = ["2025-03-26", "2024-11-05"]', 'VERSIONS = ["2025-03-26", "2024-11-5"]',
        "server.accepts-known-version",
        "Le serveur refuse 2024-11-05, et sa liste de versions donne « 2024-11-5 » : une faute de frappe dans VERSIONS ?",
        'The server refuses 2024-11-05, and its list of versions gives "2024-11-5": a typo in VERSIONS?'),
    "the server's loop goes on after the -32700": (
        "server", '        echec(None, -32700, "Erreur d’analyse")\n        continue\n',
        '        echec(None, -32700, "Erreur d’analyse")\n', "server.reply-ids",
        "a reçu 2 réponses, la deuxième juste après l’erreur -32700 : après une ligne qui n’est pas du JSON, la boucle "
        "a traité encore la requête d’avant",
        "got 2 replies, the second right after the -32700 error: after a line that is not JSON, the loop handled the "
        "previous request again"),
    "the server reads the version under another name": (
        "server", '.get("protocolVersion")', '.get("protocolversion")', "server.error-data",
        "error.data.requested vaut null, alors que la requête demandait 1999-01-01 : le serveur n’a pas lu la version "
        "là où elle est, dans params.protocolVersion.",
        "error.data.requested is null, although the request asked for 1999-01-01: the server did not read the "
        "version where it is, in params.protocolVersion."),
    "the server writes its replies with str()": (
        "server", '    print(json.dumps({"jsonrpc": "2.0", **m}), flush=True)\n', '    print(str({"jsonrpc": "2.0", **m}), flush=True)\n',
        "server.json-rpc-replies",
        "La ligne 1 de la sortie est un dict de Python écrit tel quel (apostrophes, None, True), pas du JSON",
        "Line 1 of the output is a Python dict written as it is (single quotes, None, True), not JSON"),
    "the server writes the repr of its JSON text": (
        "server", '    print(json.dumps({"jsonrpc": "2.0", **m}), flush=True)\n',
        '    print(repr(json.dumps({"jsonrpc": "2.0", **m})), flush=True)\n', "server.json-rpc-replies",
        "La ligne 1 de la sortie est une réponse JSON mise entre guillemets, comme l’écrit repr() ou json.dumps() d’un "
        "texte : écrivez le texte lui-même",
        "Line 1 of the output is a JSON reply put between quotes, as repr() or json.dumps() of a text writes it: write "
        "the text itself"),
    "the server encodes its JSON text twice": (
        "server", '    print(json.dumps({"jsonrpc": "2.0", **m}), flush=True)\n',
        '    print(json.dumps(json.dumps({"jsonrpc": "2.0", **m})), flush=True)\n', "server.json-rpc-replies",
        "La ligne 1 de la sortie est une réponse JSON mise entre guillemets",
        "Line 1 of the output is a JSON reply put between quotes"),
    "the server's fail puts data beside error": (
        "server", '        erreur["data"] = data\n    envoyer({"id": id, "error": erreur})\n',
        '        return envoyer({"id": id, "error": erreur, "data": data})\n    envoyer({"id": id, "error": erreur})\n',
        "server.error-data",
        "La réponse 2 écrit data à côté de error, en haut de la réponse, pas dans error : dans fail (partie 1), data "
        "va dans error, avec code et message.",
        "Reply 2 writes data beside error, at the top of the reply, not inside error: in fail (part 1), data goes "
        "into error, with code and message."),
    "the server announces no capability": (
        "server", '"capabilities": {"tools": {"listChanged": False}},', '"capabilities": {},',
        "server.capabilities-only-tools", "Aucune capacité n’est annoncée ({}) ; la leçon annonce tools",
        "No capability is announced ({}); the lesson announces tools"),
    "the server knows a notification by its name": (
        "server", '    if "id" not in msg:\n', '    if msg.get("method", "").startswith("notifications/"):\n',
        "server.not-a-request",
        "Votre serveur s’est arrêté sur une ligne JSON qui n’est pas une requête : {} (code 1).",
        "Your server stopped on a JSON line that is not a request: {} (code 1)."),
    "the server moves its state before checking the version": (
        "server", "    global etat\n    demandee = (msg.get(\"params\") or {}).get(\"protocolVersion\")\n",
        "    global etat\n    etat = \"attente\"\n    demandee = (msg.get(\"params\") or {}).get(\"protocolVersion\")\n",
        "server.refuses-unknown-version",
        "alors qu’aucun initialize n’a encore été accepté : un initialize refusé a quand même changé l’état du serveur",
        "although no initialize has been accepted yet: a refused initialize still changed the server's state"),
    "the server writes an error code as text": (
        "server", 'echec(msg["id"], -32601, "Méthode inconnue : "', 'echec(msg["id"], "-32601", "Méthode inconnue : "',
        "server.json-rpc-replies", "Ligne mal formée : error doit avoir code (entier) et message (texte).",
        "Malformed line: error needs code (an integer) and message (a string)."),
    "the server's gate is always true": (
        "server", '    if etat in ("nouveau", "attente"):\n', '    if etat == "nouveau" or "attente":\n',
        "server.tools-list-when-ready", "ou le test qui répond -32600 refuse aussi l’état prêt",
        "or the test that answers -32600 refuses the ready state too"),
    "the server spells capabilities the French way": (
        "server", '"capabilities": {"tools": {"listChanged": False}},', '"capabilites": {"tools": {"listChanged": False}},',
        "server.capabilities-only-tools",
        "result.capabilities manque, mais la réponse a result.capabilites : une faute de frappe pour capabilities ?",
        "result.capabilities is missing, but the reply has result.capabilites: a typo for capabilities?"),
    "the server spells result results": (
        "server", '    envoyer({"id": id, "result": result})', '    envoyer({"id": id, "results": result})',
        "server.json-rpc-replies", "il faut soit result, soit error, et la réponse a une clé presque pareille",
        "it needs either result or error, and the reply has a key nearly the same"),
    "the server sends its errors under result": (
        "server", '    envoyer({"id": id, "error": erreur})', '    envoyer({"id": id, "result": erreur})',
        "server.refuses-unknown-version",
        "l’erreur (code, message) est écrite sous result au lieu de error",
        "the error (code, message) is written under result instead of error"),
    "the server writes its capabilities as JSON text": (
        "server", '"capabilities": {"tools": {"listChanged": False}},', '"capabilities": json.dumps({"tools": {"listChanged": False}}),',
        "server.capabilities-only-tools", "result.capabilities est un texte qui contient du JSON, pas un objet",
        "result.capabilities is a text holding JSON, not an object"),
    "the server compares versions as dates": (
        "server", "    if demandee not in VERSIONS:\n", "    if not demandee or demandee < min(VERSIONS):\n",
        "server.refuses-unknown-version",
        "Réponse à la requête initialize qui demande la version 2099-01-01, plus récente que celles de VERSIONS : "
        "un result, là où la leçon attend l’erreur -32602",
        "Reply to the request initialize asking for version 2099-01-01, newer than those in VERSIONS: a "
        "result, where the lesson expects the error -32602"),
    "the server compares versions as dates and meets no version": (
        "server", "    if demandee not in VERSIONS:\n", "    if demandee < min(VERSIONS):\n",
        "server.refuses-unknown-version",
        "Réponse à la requête initialize qui demande la version 2099-01-01, plus récente que celles de VERSIONS : "
        "un result, là où la leçon attend l’erreur -32602",
        "Reply to the request initialize asking for version 2099-01-01, newer than those in VERSIONS: a "
        "result, where the lesson expects the error -32602"),
    "initialize changes a variable of its own": (
        "server", "def initialiser(msg):\n    global etat\n", "def initialiser(msg):\n",
        "server.tools-list-when-ready",
        "un second initialize est encore accepté : après un initialize réussi, l’état du serveur est resté « nouveau »",
        'a second initialize is still accepted: after an initialize that succeeded, the server\'s state stayed "new"'),
    "the server misspells tools/list": (
        "server", '    if msg.get("method") == "tools/list":\n', '    if msg.get("method") == "tool/list":\n',
        "server.tools-list-when-ready", "votre serveur ne reconnaît pas le nom tools/list",
        "your server does not recognise the name tools/list"),
    "the server spells serverInfo server_info": (
        "server", '"serverInfo": {"name": "cantine"', '"server_info": {"name": "cantine"',
        "server.capabilities-only-tools",
        "result.serverInfo manque, mais la réponse a result.server_info : une faute de frappe pour serverInfo ?",
        "result.serverInfo is missing, but the reply has result.server_info: a typo for serverInfo?"),
    "the server answers -32700 to whatever fails": (
        "server", "    try:\n        msg = json.loads(ligne)\n    except ValueError:\n        echec(None, -32700, \"Erreur d’analyse\")\n"
        "        continue\n    if isinstance(msg, dict):  # une ligne JSON qui n’est pas un objet n’est pas une requête\n"
        "        traiter(msg)\n",
        "    try:\n        traiter(json.loads(ligne))\n    except Exception:\n        echec(None, -32700, \"Erreur d’analyse\")\n",
        "server.not-a-request",
        "Votre serveur répond -32700 (erreur d’analyse) à une ligne qui est du JSON, comme [1, 2] : -32700 ne va qu’à "
        "une ligne qui n’est pas du JSON.",
        "Your server answers -32700 (parse error) to a line that is JSON, such as [1, 2]: -32700 is only for a line "
        "that is not JSON."),
    "the client closes the server's input after five replies": (
        "client", "    if len(vues) == 6:\n", "    if len(vues) == 5:\n", "client.closes-input",
        "Le client a fermé l’entrée du serveur quand 5 réponse(s) sur six lui avaient été envoyées : fermez-la une "
        "fois la sixième réponse lue, sinon les dernières peuvent se perdre.",
        "The client closed the server's input when 5 reply(ies) out of six had been sent to it: close it once the "
        "sixth reply is read, or the last ones may be lost."),
    "the server takes id 0 for a notification": (
        "server", '    if "id" not in msg:\n', '    if not msg.get("id"):\n', "server.id-zero",
        "Aucune réponse à la requête ping (id 0).", "No reply to the request ping (id 0)."),
    "the client leaves jsonrpc out": (
        "client", '    plein = {"jsonrpc": "2.0", **m}\n', "    plein = dict(m)\n", "client.jsonrpc-on-every-message",
        'Le message 1 n’a pas "jsonrpc": "2.0".', 'Message 1 has no "jsonrpc": "2.0".'),
    "the client hangs once the server's input is closed": (
        "client", "serveur.wait()\n", "serveur.wait()\nimport time\ntime.sleep(60)\n", "client.closes-input",
        "Le client ne s’est pas terminé.", "The client did not end."),
    "the helper ignores AI_URL": (
        "model", '    base = os.environ.get("AI_URL", "http://ai:4000")\n', '    base = "http://ai:4000"\n',
        "model.request", "Aucune requête n’est arrivée au modèle de l’adresse AI_URL",
        "No request reached the model at the address AI_URL"),
    "the server announces a capability it does not have": (
        "server", '{"tools": {"listChanged": False}}', '{"tools": {"listChanged": False}, "resources": {}}',
        "server.capabilities-only-tools",
        "Les capacités annoncées sont [\"resources\", \"tools\"] ; la leçon n’annonce que tools.",
        "The capabilities announced are [\"resources\", \"tools\"]; the lesson announces only tools."),
    "the server uses the lesson's translated keys": (
        "server", '{"requested": demandee, "supported": VERSIONS}', '{"demandee": demandee, "acceptees": VERSIONS}',
        "server.error-data",
        "La spécification MCP nomme ces clés requested et supported ; demandee et acceptees, dans la leçon, en sont "
        "la traduction : la réponse garde les noms de la spécification.",
        "The MCP specification names these keys requested and supported; the lesson's demandee and acceptees are "
        "their French translation: the reply keeps the specification's names."),
    "the client never closes the server's input": (
        "client", "        serveur.stdin.close()\n", "        pass\n", "client.closes-input",
        "Le serveur a écrit ses six réponses, mais le client n’a pas fermé son entrée",
        "The server wrote its six replies, but the client did not close its input"),
    "the client prints replies without the prefix": (
        "client", '    print("<- " + ligne)\n', "    print(ligne)\n", "client.prints-exchange",
        "sans le préfixe « <- »", 'without the "<- " prefix'),
    "the helper has no timeout": (
        "model", "                               timeout=delai, max_retries=0)\n", "                               max_retries=0)\n",
        "model.slow", "son attente n’est pas bornée par AI_TIMEOUT", "its wait is not bounded by AI_TIMEOUT"),
    "the helper counts its timeout in milliseconds": (
        "model", "                               timeout=delai, max_retries=0)\n",
        "                               timeout=delai * 1000, max_retries=0)\n",
        "model.slow", "son attente n’est pas bornée par AI_TIMEOUT, qui compte en secondes",
        "its wait is not bounded by AI_TIMEOUT, which counts seconds"),
    "the helper reads the old completions' text": (
        "model", "        return Answer(reponse.choices[0].message.content, False)", "        return Answer(reponse.choices[0].text, False)",
        "model.answers", "Le modèle a répondu, mais ask a rendu l’échantillon enregistré : lire sa réponse a échoué",
        "The model answered, but ask returned the recorded sample: reading its answer failed"),
    "the helper raises on a refused connection": (
        "model", "    except Exception as erreur:\n", "    except openai.APIStatusError as erreur:\n", "model.refused",
        "ask a levé une exception au lieu de répondre", "ask raised an exception instead of answering"),
    # Issue 34: what each bad line the lesson's server survives, and each transport mistake, is named.
    "the server stops on an empty line": (
        "server", "for ligne in sys.stdin:\n", "for ligne in sys.stdin:\n    if not ligne.strip():\n        break\n",
        "server.blank-line", "Votre serveur s’est arrêté sur une ligne vide (code 0), avant la fin de son entrée.",
        "Your server stopped on an empty line (code 0), before its input ended."),
    "the server takes any JSON line for a request": (
        "server", "    if isinstance(msg, dict):  # une ligne JSON qui n’est pas un objet n’est pas une requête\n        traiter(msg)\n",
        "    traiter(msg)\n", "server.not-a-request",
        "Votre serveur s’est arrêté sur une ligne JSON qui n’est pas une requête : [1, 2] (code 1).",
        "Your server stopped on a JSON line that is not a request: [1, 2] (code 1)."),
    "the server needs params in initialize": (
        "server", '    demandee = (msg.get("params") or {}).get("protocolVersion")\n',
        '    demandee = msg["params"]["protocolVersion"]\n', "server.initialize-without-params",
        'Votre serveur s’est arrêté sur un initialize sans params : {"jsonrpc": "2.0", "id": 31, "method": '
        '"initialize"} (code 1).',
        'Your server stopped on an initialize without params: {"jsonrpc": "2.0", "id": 31, "method": '
        '"initialize"} (code 1).'),
    "the server goes on after the -32602": (
        "server", '        return echec(msg["id"], -32602,', '        echec(msg["id"], -32602,', "server.reply-ids",
        "La requête initialize (id 2) a reçu 2 réponses : une requête en reçoit une, et une seule.",
        "The request initialize (id 2) got 2 replies: a request gets one, and only one."),
    "the parse error carries the previous request's id": (
        "server", '        echec(None, -32700, "Erreur d’analyse")\n', '        echec(msg.get("id"), -32700, "Erreur d’analyse")\n',
        "server.parse-error",
        "L’erreur -32700 porte l’id 0 au lieu de null : une ligne qui n’est pas du JSON n’a pas d’id que le serveur "
        "puisse lire, pas même celui de la requête d’avant.",
        "The -32700 error carries the id 0 instead of null: a line that is not JSON has no id the server can read, "
        "not even the previous request's."),
    "the server reads all its input before answering": (
        "server", "for ligne in sys.stdin:\n", "for ligne in sys.stdin.readlines():\n", "server.flushes-each-reply",
        f"Pas de réponse à cette ligne en {SERVER_REPLY:g} s : votre serveur ne répond qu’une fois son entrée fermée, comme s’il "
        "lisait toute son entrée avant de répondre.",
        f"No reply to this line in {SERVER_REPLY:g} s: your server answers only once its input has closed, as if it read all its "
        "input before answering."),
    "the client writes its messages without a newline": (
        "client", '    serveur.stdin.write(json.dumps(plein) + "\\n")\n', "    serveur.stdin.write(json.dumps(plein))\n",
        "client.seven-messages",
        "Le serveur a reçu du client une ligne qui ne finit jamais (597 caractères sans retour à la ligne) : il lit "
        "ligne par ligne, et attend encore la fin de celle-ci.",
        "The server received from the client one line that never ends (597 characters with no newline): it reads "
        "line by line, and is still waiting for this one's end."),
    "the client never flushes the server's input": (
        "client", "serveur.stdin.flush()\n", "", "client.seven-messages",
        f"Le serveur n’a rien reçu du client en {CLIENT:g} s, pas un octet",
        f"The server received nothing from the client in {CLIENT:g} s, not one byte"),
    "the client asks with the question alone": (
        "client", 'r = ask([facts(vues[2]["result"]["capabilities"]), {"role": "user", "content": q}],', "r = ask(q,",
        "client.asks-model",
        'ask reçoit "En une phrase, dites ce que peut faire… là où il attend une liste de messages, chacun un objet '
        "avec role et content.",
        'ask gets "En une phrase, dites ce que peut faire… where it expects a list of messages, each an object with '
        "role and content."),
    "the helper gives the error's own text as its reason": (
        "model", "({why_no_model(erreur, model_settings())})", "({erreur})", "model.refused",
        "La raison « Connection error. » n’est pas une de celles que donne why_no_model (fourni) : pour une connexion "
        "refusée, il dit « connexion refusée par 127.0.0.1:",
        "The reason “Connection error.” is not one why_no_model (given) gives: for a refused connection it says "
        "“connection refused by 127.0.0.1:"),
    # Found by a walk with mistakes the checks were not written for (issue 34), then named.
    "the helper leaves out max_tokens": (
        "model", "messages=messages,\n                                                 max_tokens=max_tokens)",
        "messages=messages)", "model.request",
        "La requête n’est pas celle de la leçon ; ce qui diffère : max_tokens.",
        "The request is not the lesson's; what differs: max_tokens."),
    "the helper marks the model's text as recorded": (
        "model", "return Answer(reponse.choices[0].message.content, False)",
        "return Answer(reponse.choices[0].message.content, True)", "model.answers",
        "ask renvoie bien le texte du modèle, mais marqué comme l’échantillon enregistré",
        "ask returns the model's text, but marked as the recorded sample"),
    "the helper does not mark the sample as recorded": (
        "model", "        return Answer(sample, True)", "        return Answer(sample, False)", "model.refused",
        "ask renvoie bien l’échantillon, mais sans le marquer comme enregistré",
        "ask returns the sample, but does not mark it as recorded"),
    "the client puts the whole reply 3 in the question": (
        "client", 'capacites = json.dumps(vues[2]["result"]["capabilities"])', "capacites = json.dumps(vues[2])",
        "client.asks-model", "La question ne finit pas par les capacités annoncées (result.capabilities de la réponse 3)",
        "The question does not end with the announced capabilities (reply 3's result.capabilities)"),
    "the server writes its replies without a newline": (
        "server", '    print(json.dumps({"jsonrpc": "2.0", **m}), flush=True)\n',
        '    print(json.dumps({"jsonrpc": "2.0", **m}), end="", flush=True)\n', "server.json-rpc-replies",
        "La ligne 1 de la sortie colle plusieurs réponses l’une à l’autre : chaque réponse finit par un retour à la "
        "ligne, une réponse par ligne.",
        "Line 1 of the output glues several replies together: each reply ends with a newline, one reply per line."),
    "the server never becomes ready": (
        "server", '            etat = "pret"\n', "            pass\n", "server.tools-list-when-ready",
        "La requête tools/list (id 5) reçoit encore -32600 : le serveur n’est jamais devenu prêt, ou le test qui répond "
        "-32600 refuse aussi l’état prêt. Vérifiez les deux : notifications/initialized fait passer l’état de attente à "
        "pret",
        "The request tools/list (id 5) still gets -32600: the server never became ready, or the test that answers "
        "-32600 refuses the ready state too. Check both: notifications/initialized moves the state from attente to "
        "pret"),
    "the server reads on past the end of its input": (
        "server", "for ligne in sys.stdin:\n", "while True:\n    ligne = sys.stdin.readline()\n", "server.exits-at-eof",
        "Une fois son entrée fermée, le serveur ne s’arrête pas : il a écrit ",
        "Once its input closed, the server does not stop: it wrote "),
    # The same, slow enough that its CPU budget stops it before its output's cap: still what it wrote.
    "the server reads on past the end of its input, slowly": (
        "server", "for ligne in sys.stdin:\n",
        "while True:\n    ligne = sys.stdin.readline()\n    if not ligne:\n        sum(range(400000))\n",
        "server.exits-at-eof",
        "Une fois son entrée fermée, le serveur ne s’arrête pas : il a écrit ",
        "Once its input closed, the server does not stop: it wrote "),
    "the helper leaves the SDK's retries on": (
        "model", "                               timeout=delai, max_retries=0)\n", "                               timeout=delai)\n",
        "model.slow", "requêtes au modèle muet : une requête sans réponse à temps n’est pas réessayée",
        "requests to the silent model: a request with no answer in time is not retried"),
    "the helper allows one retry": (
        "model", "                               timeout=delai, max_retries=0)\n",
        "                               timeout=delai, max_retries=1)\n",
        "model.slow", "ask a envoyé 2 requêtes au modèle muet : une requête sans réponse à temps n’est pas réessayée",
        "ask sent 2 requests to the silent model: a request with no answer in time is not retried"),
    "the server reads its input with input()": (
        "server", "for ligne in sys.stdin:\n", "while True:\n    ligne = input()\n", "server.exits-at-eof",
        "Le serveur s’est arrêté avec le code 1 à la fin de son entrée : input() y lève EOFError. La fin de l’entrée "
        "termine la boucle, sans erreur.",
        "The server stopped with code 1 at the end of its input: input() raises EOFError there. The end of input ends "
        "the loop, without an error."),
    "the server writes its replies on stderr": (
        "server", '    print(json.dumps({"jsonrpc": "2.0", **m}), flush=True)\n',
        '    print(json.dumps({"jsonrpc": "2.0", **m}), file=sys.stderr, flush=True)\n', "server.json-rpc-replies",
        "Le serveur a écrit ses réponses sur stderr, et rien sur stdout : le client ne lit que stdout ; stderr est pour "
        "les messages de suivi.",
        "The server wrote its replies on stderr, and nothing on stdout: the client reads stdout only; stderr is for "
        "log messages."),
    "the client indents its messages": (
        "client", '    serveur.stdin.write(json.dumps(plein) + "\\n")\n',
        '    serveur.stdin.write(json.dumps(plein, indent=2) + "\\n")\n', "client.seven-messages",
        "Le serveur a reçu le premier message sur 5 lignes : il lit un message par ligne, et aucune de ces lignes n’en "
        "est un. Un message JSON tient sur une seule ligne (sans indentation).",
        "The server received the first message on 5 lines: it reads one message per line, and none of these lines is "
        "one. A JSON message fits on one line (no indent)."),
    "the client prints the arrow without its space": (
        "client", '    print("-> " + json.dumps(plein))\n', '    print("->" + json.dumps(plein))\n', "client.prints-exchange",
        "Les lignes commencent par « -> » sans l’espace qui suit la flèche.",
        'The lines start with "-> " without the space after the arrow.'),
    "the client prints the Python dict": (
        "client", '    print("-> " + json.dumps(plein))\n', '    print("->", plein)\n', "client.prints-exchange",
        "Les lignes « -> » montrent le dict de Python (apostrophes, None, True) au lieu du texte JSON échangé avec le "
        "serveur.",
        'The "-> " lines show Python\'s dict (single quotes, None, True) instead of the JSON text exchanged with the '
        "server."),
    "the server turns ids into text": (
        "server", '    print(json.dumps({"jsonrpc": "2.0", **m}), flush=True)\n',
        '    m["id"] = None if m["id"] is None else str(m["id"])\n    print(json.dumps({"jsonrpc": "2.0", **m}), flush=True)\n',
        "server.reply-ids", 'La réponse à la requête tools/list (id 1) porte l’id "1" : recopiez l’id tel quel.',
        'The reply to the request tools/list (id 1) carries the id "1": copy the id as it is.'),
    "a wrong cell in answers.toml": (
        "answers", '"1999-01-01" = "erreur -32602"\n', '"1999-01-01" = "erreur -32601"\n', "answers.three-clients",
        'Cellule trois_clients."1999-01-01"', 'Cell trois_clients."1999-01-01"'),
    # A walk's mistakes (issue 34), made the way a student makes them, none written for a check.
    "the server writes jsonrpc 2": (
        "server", '    print(json.dumps({"jsonrpc": "2.0", **m}), flush=True)\n',
        '    print(json.dumps({"jsonrpc": "2", **m}), flush=True)\n', "server.json-rpc-replies",
        'Ligne mal formée : "jsonrpc" vaut "2.0", le texte exact de la version de JSON-RPC.',
        'Malformed line: "jsonrpc" is "2.0", the exact text of JSON-RPC\'s version.'),
    "the server announces tools without listChanged": (
        "server", '"capabilities": {"tools": {"listChanged": False}}', '"capabilities": {"tools": {}}',
        "server.list-changed-false",
        "Réponse à la requête initialize (id 3) : result.capabilities.tools.listChanged manque, au lieu de valoir false.",
        "Reply to the request initialize (id 3): result.capabilities.tools.listChanged is missing instead of false."),
    "the server answers ping only once ready": (
        "server", '    if msg.get("method") == "ping":\n        return repondre(msg["id"], {})\n', "",
        "server.ping-every-state",
        'Réponse à la requête ping envoyée avant initialize : l’erreur -32600 ("Pas initialisé"), là où la leçon '
        "attend un result : votre serveur refuse ce que la leçon accepte.",
        'Reply to the request ping sent before initialize: the error -32600 ("Pas initialisé"), where the lesson '
        "expects a result: your server refuses what the lesson accepts."),
    "the server refuses a second initialize with -32602": (
        "server", 'echec(msg["id"], -32600, "Déjà initialisé")', 'echec(msg["id"], -32602, "Déjà initialisé")',
        "server.second-initialize",
        "Réponse à la requête initialize envoyée une deuxième fois, pendant l’attente : error.code vaut -32602 au "
        "lieu de -32600.",
        "Reply to the request initialize sent a second time, while waiting: error.code is -32602 instead of -32600."),
    "the server reads only its first line": (
        "server", "for ligne in sys.stdin:\n", "for ligne in [sys.stdin.readline()]:\n", "server.keeps-running",
        "Le serveur s’est arrêté (code 0) après cette ligne, avant la fin de son entrée.",
        "The server stopped (code 0) after this line, before its input ended."),
    "the server loses the id of its -32600": (
        "server", 'return echec(msg["id"], -32600, "Pas initialisé")', 'return echec(None, -32600, "Pas initialisé")',
        "server.reply-ids",
        "La requête tools/list (id 1) n’a pas de réponse à son id, et une erreur -32600 porte id null",
        "The request tools/list (id 1) has no reply with its id, and an error -32600 carries id null"),
    "the server answers a line without method with id null": (
        "server", "    if isinstance(msg, dict):  # une ligne JSON qui n’est pas un objet n’est pas une requête\n",
        '    if isinstance(msg, dict) and "method" not in msg:\n        echec(None, -32600, "Requête invalide")\n'
        "    elif isinstance(msg, dict):\n", "server.invalid-request-id",
        'Votre serveur répond à {"jsonrpc": "2.0", "id": 25} par {"jsonrpc": "2.0", "id": null, "error": {"code": '
        '-32600, "message": "Requête invalide"}} : cette ligne a l’id 25, et sa réponse le reprend, même quand c’est '
        "l’erreur -32600 (requête invalide) ; seule l’erreur -32700 (une ligne qui n’est pas du JSON) a id null.",
        'Your server answers {"jsonrpc": "2.0", "id": 25} with {"jsonrpc": "2.0", "id": null, "error": {"code": '
        '-32600, "message": "Requête invalide"}}: this line has the id 25, and its reply carries it, even when it is '
        "the error -32600 (invalid request); only the -32700 error (a line that is not JSON) has id null."),
    "the server leaves a line without method unanswered": (
        "server", "    if isinstance(msg, dict):  # une ligne JSON qui n’est pas un objet n’est pas une requête\n",
        '    if isinstance(msg, dict) and "method" not in msg:\n        continue\n'
        "    if isinstance(msg, dict):\n", "server.invalid-request-id",
        'Votre serveur ne répond rien à {"jsonrpc": "2.0", "id": 25} : cette ligne a un id, c’est donc une requête, '
        "même sans method, et elle reçoit une réponse avec cet id (l’erreur -32600, requête invalide).",
        'Your server gives no reply to {"jsonrpc": "2.0", "id": 25}: this line has an id, so it is a request, even '
        "with no method, and it gets a reply with that id (the error -32600, invalid request)."),
    "the server waits for a notification named initialized": (
        "server", 'msg.get("method") == "notifications/initialized" and etat', 'msg.get("method") == "initialized" and etat',
        "server.tools-list-when-ready",
        'Votre server.py attend la notification "initialized", mais le client envoie "notifications/initialized"',
        'Your server.py waits for the notification "initialized", but the client sends "notifications/initialized"'),
    "the server speaks 2024-11-05 only": (
        "server", "    if demandee not in VERSIONS:\n", '    if demandee != "2024-11-05":\n',
        "server.accepts-known-version",
        "Réponse à la requête initialize qui demande la version 2025-03-26 : l’erreur -32602",
        "Reply to the request initialize asking for version 2025-03-26: the error -32602"),
    "the server forgets a version it speaks": (
        "server", 'VERSIONS = ["2025-03-26", "2024-11-05"]', 'VERSIONS = ["2025-03-26"]',
        "server.accepts-known-version",
        "Réponse à la requête initialize (id 3) : l’erreur -32602", "Reply to the request initialize (id 3): the error -32602"),
    "the server crashes on every ping": (
        "server", 'return repondre(msg["id"], {})', 'return repondre(msg["id"], msg["params"])', "server.keeps-running",
        "Le serveur s’est arrêté (code 1) après cette ligne, avant la fin de son entrée.",
        "The server stopped (code 1) after this line, before its input ended."),
    "the model helper catches connection errors only": (
        "model", "    except Exception as erreur:", "    except openai.APIConnectionError as erreur:", "model.http-error",
        "« except openai.APIConnectionError as erreur » ne prend que les erreurs qu’il nomme, et celle-ci lui échappe",
        "“except openai.APIConnectionError as erreur” takes only the errors it names, and this one escapes it"),
    "the client gives the notification id None": (
        "client", '    {"method": "notifications/initialized"},\n', '    {"id": None, "method": "notifications/initialized"},\n',
        "client.seven-messages",
        'Le message 5, notifications/initialized, a "id": null : une notification n’a pas de clé id du tout',
        'Message 5, notifications/initialized, has "id": null: a notification has no id key at all'),
    "the client spells the notification initialised": (
        "client", '    {"method": "notifications/initialized"},\n', '    {"method": "notifications/initialised"},\n',
        "client.seven-messages", "Le message 5 n’est pas celui de la leçon (method).",
        "Message 5 is not the lesson's (method)."),
    "the client leaves clientInfo out": (
        "client", ', "clientInfo": {"name": "demo", "version": "0.1"}}}', "}}", "client.initialize-params",
        "params d’initialize : protocolVersion, capabilities {} et clientInfo {name, version}.",
        "initialize's params: protocolVersion, capabilities {} and clientInfo {name, version}."),
    "the helper adds /v1 to an address that has it": (
        "model", 'base_url=base + "/v1"', 'base_url=base + "/v1/v1"', "model.request",
        "La requête n’est pas celle de la leçon ; ce qui diffère : path.",
        "The request is not the lesson's; what differs: path."),
    "the answers take reply 4 for a result": (
        "answers", "4 = -32600", '4 = "résultat"', "answers.six-replies",
        "Cellule six_reponses.4 : ce n’est pas ce que répond le serveur.",
        "Cell six_reponses.4 (the six replies: 4): that is not what the server answers."),
    "the answers have 2025-03-26 fall back": (
        "answers", '"2025-03-26" = "résultat en 2025-03-26"', '"2025-03-26" = "résultat en 2024-11-05"',
        "answers.three-clients", 'Cellule trois_clients."2025-03-26" : ce n’est pas ce que répond le serveur.',
        'Cell trois_clients."2025-03-26" (three clients ask: "2025-03-26"): that is not what the server answers.'),
    "the client leaves out max_tokens": (
        "client", '"Il peut lister des outils, et il ne dit pas que sa liste va changer.", 60)',
        '"Il peut lister des outils, et il ne dit pas que sa liste va changer.")', "client.asks-model",
        "ask reçoit max_tokens 80 au lieu de 60 : la leçon demande au modèle une phrase courte",
        "ask gets max_tokens 80 instead of 60: the lesson asks the model for a short sentence"),
    "the client waits for a reply to the notification": (
        "client", "    if len(vues) == 6:\n", "    if len(vues) == 7:\n", "client.closes-input",
        "Après la sixième réponse, plus rien ne vient (la notification n’en reçoit pas)",
        "After the sixth reply nothing more comes (the notification gets none)"),
    "the client counts the replies from 1": (
        "client", 'capacites = json.dumps(vues[2]["result"]["capabilities"])', 'capacites = json.dumps(vues[3]["result"]["capabilities"])',
        "client.asks-model", "Le client s’est arrêté sur une erreur (code 1) avant d’appeler ask",
        "The client stopped on an error (code 1) before calling ask"),
    "the helper's fallback returns the bare sample": (
        "model", "        return Answer(sample, True)", "        return sample", "model.refused",
        "ask renvoie l’échantillon seul, un texte, au lieu d’un Answer",
        "ask returns the sample alone, a string, instead of an Answer"),
    "answers.toml spells initialize the British way": (
        "answers", 'poignee_de_main = "initialize"', 'poignee_de_main = "initialise"', "answers.keywords",
        "presque : « initialise » s’écrit initialize, comme dans les messages JSON.",
        "almost: “initialise” is spelt initialize, as in the JSON messages."),
    "answers.toml keys a reply with its request": (
        "answers", '1 = "erreur -32600"', '"1 tools/list" = "erreur -32600"', "answers.six-replies",
        "la table a une clé « 1 tools/list » que la leçon n’a pas", "the table has a key “1 tools/list” the lesson does not have"),
    "answers.toml copies the heading as a table's name": (
        "answers", "[six_reponses]", "[six réponses]", "answers.keywords",
        "le nom de la table a une lettre qu’un nom sans guillemets n’admet pas (un accent, une espace)",
        "the table's name has a letter a name without quotes does not take (an accent, a space)"),
    "the helper reads AI_TIMEOUT as a whole number": (
        "model", 'delai = float(os.environ.get("AI_TIMEOUT", "30"))', 'delai = int(os.environ.get("AI_TIMEOUT", "30"))',
        "model.slow", "ask a levé une exception au lieu de répondre", "ask raised an exception instead of answering"),
    "the client asks its question as the system": (
        "client", '{"role": "user", "content": q}', '{"role": "system", "content": q}', "client.asks-model",
        'La question part avec le rôle "system" : c’est l’utilisateur qui la pose ("user")',
        'The question goes with the role "system": the user asks it ("user")'),
    "the client puts its question under text": (
        "client", '{"role": "user", "content": q}', '{"role": "user", "text": q}', "client.asks-model",
        "Le message 2 qu’ask reçoit,", "Message 2 that ask gets,"),
    "the helper forgets its key": (
        "model", 'openai.OpenAI(base_url=base + "/v1", api_key=os.environ.get("AI_KEY", "lab"),', 'openai.OpenAI(base_url=base + "/v1",',
        "model.request", "Aucune requête n’est arrivée au modèle de l’adresse AI_URL : ce qu’ask a affiché, ci-dessous, "
        "dit pourquoi.", "No request reached the model at the address AI_URL: what ask printed, below, says why."),
    "answers.toml writes the six replies as one list": (
        "answers", '[six_reponses]\n1 = "erreur -32600"\n2 = "-32602"\n3 = "résultat"\n4 = -32600\n5 = "résultat"\n'
        '6 = "-32601 méthode inconnue"', 'six_reponses = ["-32600", "-32602", "résultat", "-32600", "résultat", "-32601"]',
        "answers.six-replies", "six_reponses est écrit dans answers.toml comme une seule valeur, pas comme la table "
        "[six_reponses]", "six_reponses is written in answers.toml as one value, not as the [six_reponses] table"),
    "the client gives the facts after its question": (
        "client", 'ask([facts(vues[2]["result"]["capabilities"]), {"role": "user", "content": q}]',
        'ask([{"role": "user", "content": q}, facts(vues[2]["result"]["capabilities"])]', "client.asks-model",
        "Le message système de facts(capacités) part après la question", "The system message of facts(capabilities) goes after the question"),
    "answers.toml names the state in a phrase": (
        "answers", 'etat = "prêt"', 'etat = "en attente"', "answers.keywords",
        "presque : écrivez seulement « attente », le mot de la leçon, sans rien autour.",
        "almost: write only “attente”, the lesson's word, with nothing around it."),
    "answers.toml loses the minus sign of a code": (
        "answers", '1 = "erreur -32600"', '1 = "erreur 32600"', "answers.six-replies",
        "les codes d’erreur de JSON-RPC sont négatifs : le signe moins fait partie du code",
        "JSON-RPC's error codes are negative: the minus sign is part of the code"),
    "answers.toml gives an error's message for its code": (
        "answers", '1 = "erreur -32600"', '1 = "Pas initialisé"', "answers.six-replies",
        "Cellule six_reponses.1 : c’est bien une erreur : dites aussi son code.",
        "Cell six_reponses.1 (the six replies: 1): it is an error indeed: also say its code."),
    "answers.toml puts an accent in a table's name": (
        "answers", "[six_reponses]", "[six_réponses]", "answers.keywords",
        "answers.toml ne se lit pas, ligne 12 : le nom de la table a une lettre qu’un nom sans guillemets n’admet pas",
        "answers.toml does not read, line 12: the table's name has a letter a name without quotes does not take"),
    "answers.toml with a word after an answer": (
        "answers", "4 = -32600", "4 = -32600 tools/list", "answers.keywords",
        "answers.toml ne se lit pas, ligne 16 : après la réponse, rien d’autre sur la ligne qu’un commentaire #",
        "answers.toml does not read, line 16: after the answer, nothing else on the line but a # comment"),
    # Each server check named by a mistake of its own, not only by a neighbour's.
    "the server has no state gate": (
        "server", '    if etat in ("nouveau", "attente"):\n        return echec(msg["id"], -32600, "Pas initialisé")\n', "",
        "server.gate-before-initialize",
        "Réponse à la requête tools/list (id 1) : un result, là où la leçon attend l’erreur -32600",
        "Reply to the request tools/list (id 1): a result, where the lesson expects the error -32600"),
    "the server answers an unknown method with -32600": (
        "server", 'echec(msg["id"], -32601, "Méthode inconnue : "', 'echec(msg["id"], -32600, "Méthode inconnue : "',
        "server.unknown-method",
        "Réponse à la requête resources/list (id 6) : error.code vaut -32600 au lieu de -32601.",
        "Reply to the request resources/list (id 6): error.code is -32600 instead of -32601."),
    "the server accepts a second initialize": (
        "server", 'return initialiser(msg) if etat == "nouveau" else echec(msg["id"], -32600, "Déjà initialisé")',
        "return initialiser(msg)", "server.second-initialize",
        "Réponse à la requête initialize envoyée une deuxième fois, pendant l’attente : un result, là où la "
        "leçon attend l’erreur -32600",
        "Reply to the request initialize sent a second time, while waiting: a result, where the lesson "
        "expects the error -32600"),
    "the server announces listChanged true": (
        "server", '{"tools": {"listChanged": False}}', '{"tools": {"listChanged": True}}', "server.list-changed-false",
        "Réponse à la requête initialize (id 3) : result.capabilities.tools.listChanged vaut true au lieu de false.",
        "Reply to the request initialize (id 3): result.capabilities.tools.listChanged is true instead of false."),
    "the parse error leaves its id out": (
        "server", '        echec(None, -32700, "Erreur d’analyse")\n',
        '        envoyer({"error": {"code": -32700, "message": "Erreur d’analyse"}})\n', "server.parse-error",
        "L’erreur -32700 n’a pas de clé id : elle porte \"id\": null",
        "The -32700 error has no id key: it carries \"id\": null"),
    "the server ends with an error code": (
        "server", "        traiter(msg)\n", "        traiter(msg)\nsys.exit(3)\n", "server.exits-at-eof",
        "Le serveur s’est arrêté avec le code 3.", "The server stopped with code 3."),
    # Issue 34: JavaScript's habits, and a misspelt key, said the Python way under the crash they cause.
    "the server writes JavaScript's null": (
        "server", '    if msg.get("method") == "ping":\n', '    if msg.get("method") == "ping" and etat != null:\n',
        "server.keeps-running", "« null » s’écrit ainsi en JavaScript (et en JSON) ; en Python, c’est None, avec sa majuscule.",
        "“null” is written so in JavaScript (and JSON); in Python it is None, with its capital."),
    "the server joins its conditions with &&": (
        "server", '        if msg.get("method") == "notifications/initialized" and etat == "attente":\n',
        '        if msg.get("method") == "notifications/initialized" && etat == "attente":\n', "server.json-rpc-replies",
        "&&, || et === s’écrivent ainsi en JavaScript ; en Python, ce sont and, or et ==.",
        "&&, || and === are written so in JavaScript; in Python they are and, or and ==."),
    "the server reads a key with a dot": (
        "server", '    if msg.get("method") == "ping":\n', '    if msg.method == "ping":\n', "server.json-rpc-replies",
        "Un dictionnaire (dict) n’a pas d’attribut « method » : un message JSON lu par Python est un dict, et ses clés "
        "se lisent entre crochets, message[\"method\"]",
        "A dictionary (dict) has no attribute “method”: a JSON message read by Python is a dict, and its keys are read "
        "in brackets, message[\"method\"]"),
    "the server adds a message to a text": (
        "server", 'echec(msg["id"], -32601, "Méthode inconnue : " + str(msg.get("method")))',
        'echec(msg["id"], -32601, "Méthode inconnue : " + msg)', "server.keeps-running",
        "Le signe + ne colle un texte (str) qu’à un autre texte : un dict ou une liste devient du texte JSON avec "
        "json.dumps(valeur), un nombre du texte avec str(valeur).",
        "The + sign joins a text (str) only to another text: a dict or a list becomes JSON text with json.dumps(value), "
        "a number becomes text with str(value)."),
    "the server misspells params": (
        "server", '    demandee = (msg.get("params") or {}).get("protocolVersion")\n',
        '    demandee = msg["parms"]["protocolVersion"]\n', "server.keeps-running",
        "La clé « parms » n’est pas dans ce dictionnaire : une faute de frappe pour « params », une clé des messages de "
        "la leçon ?",
        "The key “parms” is not in this dictionary: a typo for “params”, a key of the lesson's messages?"),
    "the client writes param for params": (
        "client", '    return {"id": id, "method": "initialize",\n            "params":',
        '    return {"id": id, "method": "initialize",\n            "param":', "client.seven-messages",
        "Le message 2 n’a pas params, mais il a param : une faute de frappe ?",
        "Message 2 has no params, but it has param: a typo?"),
    "the helper forgets to import openai": (
        "model", "import openai\n", "", "model.request",
        "Aucune requête n’est arrivée au modèle de l’adresse AI_URL : ce qu’ask a affiché, ci-dessous, dit pourquoi.\n"
        "Échantillon enregistré : aucun modèle n’a répondu (NameError: name 'openai' is not defined).",
        "No request reached the model at the address AI_URL: what ask printed, below, says why.\n"
        "Échantillon enregistré : aucun modèle n’a répondu (NameError: name 'openai' is not defined)."),
    "the helper leaves out messages=": (
        "model", "messages=messages,\n", "\n", "model.request",
        "Aucune requête n’est partie : le SDK openai a refusé l’appel, car client.chat.completions.create demande "
        "model= et messages=",
        "No request left: the openai SDK refused the call, as client.chat.completions.create needs model= and messages="),
    "the server misspells a state": (
        "server", '    etat = "attente"\n', '    etat = "atente"\n', "server.gate-while-waiting",
        "votre serveur écrit « atente » une fois, « attente » ailleurs : une faute de frappe dans un nom d’état ?",
        "your server writes “atente” once, “attente” elsewhere: a typo in a state's name?"),
    "the server's gate tests a text for a tuple": (
        "server", '    if etat in ("nouveau", "attente"):\n', '    if etat in ("nouveau"):\n', "server.gate-while-waiting",
        'votre serveur teste in ("nouveau") : des parenthèses autour d’un seul texte ne font pas un tuple',
        'your server tests in ("nouveau"): parentheses around a single text make no tuple'),
    "the server's gate lets the waiting state through": (
        "server", '    if etat in ("nouveau", "attente"):\n', '    if etat in ("nouveau",):\n', "server.gate-while-waiting",
        "Réponse à la requête tools/list (id 4) : un result, là où la leçon attend l’erreur -32600",
        "Reply to the request tools/list (id 4): a result, where the lesson expects the error -32600"),
    "the client sends a request with id null": (
        "client", '    {"id": 4, "method": "tools/list"},', '    {"id": None, "method": "tools/list"},', "client.seven-messages",
        'Le message 4 a "id": null au lieu de 4 : une requête porte un id',
        'Message 4 has "id": null instead of 4: a request carries an id'),
    "the client writes its ids as text": (
        "client", '    {"id": 1, "method": "tools/list"},', '    {"id": "1", "method": "tools/list"},', "client.seven-messages",
        'Le message 1 a l’id "1" au lieu de 1 : recopiez les ids de la leçon tels quels',
        'Message 1 has the id "1" instead of 1: copy the lesson\'s ids as they are'),
    "answers.toml names the cells with words": (
        "answers", '1 = "erreur -32600"\n2 = "-32602"', 'un = "erreur -32600"\ndeux = "-32602"', "answers.six-replies",
        "Cellule six_reponses.1 : elle manque, et la table a à sa place une clé « un » que la leçon n’a pas : gardez "
        "les clés du fichier donné, ici 1.",
        "it is missing, and the table has in its place a key “un” the lesson does not have: keep the keys of the given "
        "file, here 1."),
    "the helper's format has more {} than values": (
        "model", '        print(f"Échantillon enregistré : aucun modèle n’a répondu ({why_no_model(erreur, model_settings())}).")',
        '        print("Échantillon enregistré : aucun modèle n’a répondu ({}, {}).".format(why_no_model(erreur, model_settings())))',
        "model.refused", "Ce texte a plus de {} que .format ne reçoit de valeurs : chaque {} prend la valeur suivante.",
        "This text has more {} than .format gets values: each {} takes the next value."),
    "the server swaps the id and the result": (
        "server", '    envoyer({"id": id, "result": result})\n', '    envoyer({"id": result, "result": id})\n',
        "server.json-rpc-replies", "Ligne mal formée : son id n’est ni un nombre, ni un texte, ni null : c’est l’id de "
        "la requête qui revient", "Malformed line: its id is neither a number, a text nor null: the request's id is "
        "what comes back"),
    "the client prints its replies without their newline": (
        "client", 'print("<- " + ligne)', 'print("<- " + ligne, end="")', "client.prints-exchange",
        "Les lignes « <- » se suivent sur une seule ligne : chacune finit par un retour à la ligne, que print(…, "
        "end=\"\") ôte.",
        "The \"<- \" lines follow one another on a single line: each ends with a newline, which print(…, end=\"\") "
        "takes away."),
    "the server forgets the return after a notification": (
        "server", '            etat = "pret"\n        return\n', '            etat = "pret"\n', "server.keeps-running",
        "La clé « id » n’est pas dans ce dictionnaire : vérifiez d’abord qu’elle y est (une notification n’a pas d’id, "
        "et ne reçoit jamais de réponse).",
        "The key “id” is not in this dictionary: check first that it is there (a notification has no id, and never "
        "gets a reply)."),
    "the server answers ping with null": (
        "server", '        return repondre(msg["id"], {})', '        return repondre(msg["id"], None)',
        "server.ping-every-state", "Réponse à la requête ping envoyée avant initialize : result vaut null au lieu de {}.",
        "Reply to the request ping sent before initialize: result is null instead of {}."),
    # A student's walk of the client and the answers, each named by its cause.
    "the client sends the notification before the fourth request": (
        "client", '    {"id": 4, "method": "tools/list"},\n    {"method": "notifications/initialized"},\n',
        '    {"method": "notifications/initialized"},\n    {"id": 4, "method": "tools/list"},\n', "client.seven-messages",
        "Le message 4 est le message 5 de la leçon (notifications/initialized), à la place de tools/list",
        "Message 4 is the lesson's message 5 (notifications/initialized), in place of tools/list"),
    "the client leaves resources/list out": (
        "client", '    {"id": 6, "method": "resources/list"},\n', "", "client.seven-messages",
        "Le message 7 de la leçon, resources/list, manque : il n’y en a que 6 sur sept.",
        "The lesson's message 7, resources/list, is missing: there are only 6 of seven."),
    "the client writes str() of its messages": (
        "client", '    serveur.stdin.write(json.dumps(plein) + "\\n")\n', '    serveur.stdin.write(str(plein) + "\\n")\n',
        "client.seven-messages", "Le serveur a reçu en message 1 le dict de Python écrit par str()",
        "The server received as message 1 Python's dict written by str()"),
    "answers.toml ends a cell with a comma": (
        "answers", 'etat = "prêt"', 'etat = "prêt",', "answers.keywords",
        "answers.toml ne se lit pas, ligne 4 : une virgule après la réponse",
        "answers.toml does not read, line 4: a comma after the answer"),
    "answers.toml puts an apostrophe in single quotes": (
        "answers", 'etat = "prêt"', "etat = 'l'attente'", "answers.keywords",
        "une apostrophe dans un texte entre apostrophes le ferme là", "an apostrophe inside a text in single quotes ends it there"),
    "answers.toml has a word processor's quotes": (
        "answers", 'etat = "prêt"', "etat = « prêt »", "answers.keywords",
        "la réponse est entre guillemets typographiques", "the answer is in typographic quotes"),
    "answers.toml writes a code with a thousands space": (
        "answers", "4 = -32600", "4 = -32 600", "answers.keywords",
        "un nombre s’écrit d’un seul tenant, sans espace ni virgule entre ses chiffres",
        "a number is written in one piece, with no space or comma between its digits"),
    "answers.toml opens a table twice": (
        "answers", "[six_reponses]", "[mots_cles]\n[six_reponses]", "answers.keywords",
        "cette table est déjà ouverte plus haut", "this table is opened already further up"),
    "answers.toml writes an answer under another table": (
        "answers", '"1999-01-01" = "erreur -32602"\n\n[six_reponses]\n', '\n[six_reponses]\n"1999-01-01" = "erreur -32602"\n',
        "answers.three-clients", "elle manque ici, et la table [six_reponses] a cette clé",
        "it is missing here, and the [six_reponses] table has this key"),
    "the server replies with instructions null": (
        "server", '"serverInfo": {"name": "cantine", "version": "0.2"}})',
        '"serverInfo": {"name": "cantine", "version": "0.2"}, "instructions": None})', "server.capabilities-only-tools",
        "Réponse à la requête initialize (id 3) : result.instructions vaut null. Une clé facultative qui n’a rien à dire "
        "s’omet",
        "Reply to the request initialize (id 3): result.instructions is null. An optional key with nothing to say is "
        "left out"),
    "the model helper forgets the f of its fallback line": (
        "model", 'print(f"Échantillon enregistré', 'print("Échantillon enregistré', "model.refused",
        "La raison « {why_no_model(erreur, model_settings())} » est restée telle qu’écrite, accolades comprises",
        "The reason “{why_no_model(erreur, model_settings())}” stayed as written, braces and all"),
    "the model helper returns the sample in finally, the model's answer too": (
        "model", "        return Answer(sample, True)", "    finally:\n        return Answer(sample, True)", "model.answers",
        "ask a rendu l’échantillon enregistré sans afficher de raison : rien n’avait échoué",
        "ask returned the recorded sample without printing a reason: nothing had failed"),
    "the model helper is async def, as demander is in model.js": (
        "model", "def ask(messages, sample, max_tokens=80):", "async def ask(messages, sample, max_tokens=80):",
        "model.request", "ask est écrit async def : l’appeler rend une coroutine",
        "ask is written async def: calling it returns a coroutine"),
    "the model helper checks the address before its try": (
        "model", '    delai = float(os.environ.get("AI_TIMEOUT", "30"))\n',
        '    delai = float(os.environ.get("AI_TIMEOUT", "30"))\n    from model_setup import check_model_address\n'
        '    check_model_address(model_settings())\n', "model.refused",
        "ask a laissé passer l’erreur de check_model_address (fourni), qui dit que rien ne répond à AI_URL : "
        "appelez-le dans le try", "ask let through the error of check_model_address (given), which says nothing "
        "answers at AI_URL: call it inside the try"),
    "the model helper returns the sample before its request": (
        "model", '    delai = float(os.environ.get("AI_TIMEOUT", "30"))\n',
        '    delai = float(os.environ.get("AI_TIMEOUT", "30"))\n    return Answer(sample, True)  # pour tester sans modèle\n',
        "model.request", "et ask n’a rien affiché : il a rendu « ÉCHANTILLON » sans le demander au modèle",
        "and ask printed nothing: it returned “SAMPLE” without asking the model"),
    "the model helper tests what check_model_address returns": (
        "model", '    delai = float(os.environ.get("AI_TIMEOUT", "30"))\n',
        '    delai = float(os.environ.get("AI_TIMEOUT", "30"))\n    from model_setup import check_model_address\n'
        '    if not check_model_address(model_settings()):\n        return Answer(sample, True)\n', "model.request",
        "ask teste ce que rend check_model_address (fourni), qui ne rend rien (None)",
        "ask tests what check_model_address (given) returns, which is nothing (None)"),
    "the model helper prints its reason after the line, its placeholder left in": (
        "model", '    print(f"Échantillon enregistré : aucun modèle n’a répondu ({why_no_model(erreur, model_settings())}).")',
        '    print("Échantillon enregistré : aucun modèle n’a répondu ({raison}).", why_no_model(erreur, model_settings()))',
        "model.refused", "La raison « {raison} » est restée telle qu’écrite, accolades comprises",
        "The reason “{raison}” stayed as written, braces and all"),
    "the model helper returns its Answer as a text": (
        "model", "return Answer(reponse.choices[0].message.content, False)",
        'return f"{Answer(reponse.choices[0].message.content, False)}"', "model.answers",
        "ask renvoie l’Answer écrit en texte, pas l’Answer lui-même", "ask returns the Answer written as a text, not the Answer itself"),
    "the model helper takes the SDK's AsyncOpenAI": (
        "model", "client = openai.OpenAI(", "client = openai.AsyncOpenAI(", "model.request",
        "ask a reçu une coroutine (d’AsyncOpenAI, ou d’une fonction async def) sans jamais l’attendre",
        "ask got a coroutine (from AsyncOpenAI, or from an async def function) and never awaited it"),
    "the model helper tries again by hand when the model is silent": (
        "model", "        return Answer(reponse.choices[0].message.content, False)\n",
        "        return Answer(reponse.choices[0].message.content, False)\n    except openai.APITimeoutError:\n"
        "        try:  # une deuxième chance\n            reponse = client.chat.completions.create(model=os.environ.get("
        "\"AI_MODEL\", \"lab\"), messages=messages, max_tokens=max_tokens)\n"
        "            return Answer(reponse.choices[0].message.content, False)\n        except Exception as encore:\n"
        "            print(f\"Échantillon enregistré : aucun modèle n’a répondu ({why_no_model(encore, model_settings())}).\")\n"
        "            return Answer(sample, True)\n", "model.slow",
        "ask a envoyé 2 requêtes au modèle muet : une requête sans réponse à temps n’est pas réessayée. Le SDK ne "
        "réessaie pas ici (max_retries=0) : c’est ask qui la renvoie",
        "ask sent 2 requests to the silent model: a request with no answer in time is not retried. The SDK does not "
        "retry here (max_retries=0): ask sends it again"),
    "the model helper catches two of the SDK's errors only": (
        "model", "    except Exception as erreur:",
        "    except (openai.APIConnectionError, openai.APITimeoutError) as erreur:", "model.http-error",
        "« except (openai.APIConnectionError, openai.APITimeoutError) as erreur » ne prend que les erreurs qu’il nomme",
        "“except (openai.APIConnectionError, openai.APITimeoutError) as erreur” takes only the errors it names"),
}


def lesson_folder(folder, kind: str, change: tuple[str, str] | None = None):
    source = (FIXTURES / SOURCES[kind]).read_text(encoding="utf-8")
    if change:
        source = mutate(source, *change)
    (folder / FILES[kind]).write_text(source, encoding="utf-8")
    if kind == "client":  # the client's model.py is replaced by the kit's spy: any helper will do
        shutil.copyfile(FIXTURES / SOURCES["model"], folder / "model.py")
    return folder


def first_failure(report) -> tuple[str, str]:
    """The first ✗ line's check id, and the message under it, followed (on its own lines) by
    the output shown with it: a crash is named by the sentence on its Python error."""
    lines = click.unstyle(render(report)).splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith("    ✗ "))
    titled = [result for result in report.results if result.title == lines[index].removeprefix("    ✗ ")]
    assert len(titled) == 1, lines[index]  # a title names one check
    return titled[0].id, "\n".join((lines[index + 1].strip(), titled[0].output or ""))


@pytest.mark.parametrize("kind", sorted(FILES))
def test_a_lesson_style_answer_gets_full_marks(tmp_path, kind):
    report = run_some(lesson_folder(tmp_path, kind), f"{kind}.", lang="fr")
    assert report.results and report.score == report.max_score, [
        (r.id, r.message, r.actual, r.output) for r in report.results if r.status != PASSED]


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_the_first_failure_names_the_mistake_in_both_languages(tmp_path, mistake):
    kind, old, new, check_id, french, english = MISTAKES[mistake]

    def check(lang: str):
        folder = tmp_path / lang
        folder.mkdir()
        return run_some(lesson_folder(folder, kind, (old, new)), f"{kind}.", lang=lang)

    # Both languages at once: a hanging mistake waits out its limits in each, side by side.
    with ThreadPoolExecutor(max_workers=2) as pool:
        reports = dict(zip(("fr", "en"), pool.map(check, ("fr", "en"))))
    for lang, words in (("fr", french), ("en", english)):
        named, message = first_failure(reports[lang])
        assert (named, words in message) == (check_id, True), (lang, named, message)


def test_the_server_gets_no_help_to_flush_even_when_the_kit_has_some(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONUNBUFFERED", "1")  # in the kit's own environment: not passed on
    kind, old, new, check_id, _, english = MISTAKES["the server never flushes"]
    report = run_some(lesson_folder(tmp_path, kind, (old, new)), "server.", lang="en")
    named, message = first_failure(report)
    assert (named, english in message) == (check_id, True), message


def test_a_crash_shows_the_students_file_and_line_and_the_error_only(tmp_path):
    kind, old, new, *_ = MISTAKES["the server crashes on a bad line"]
    report = run_some(lesson_folder(tmp_path, kind, (old, new)), "server.", lang="en")
    crash = next(r for r in report.results if r.id == "server.parse-error")
    line = 1 + (FIXTURES / SOURCES["server"]).read_text().replace(old, new).splitlines().index("    msg = json.loads(ligne)")
    assert crash.output.splitlines() == [
        f"server.py, line {line}", "    msg = json.loads(ligne)", "This text is not JSON: json.loads refused it.",
        "json.decoder.JSONDecodeError: Expecting value: line 2 column 1 (char 39)"]


@pytest.mark.parametrize(("mistake", "lang", "shown"), [
    ("the server turns ids into text", "fr", ["attendu : 1", 'obtenu  : "1"']),
    ("the server turns ids into text", "en", ["expected: 1", 'actual:   "1"']),
    ("the parse error carries the previous request's id", "fr", ["attendu : id = null", "obtenu  : id = 0"]),
    ("the parse error carries the previous request's id", "en", ["expected: id = null", "actual:   id = 0"]),
    ("the server answers a notification", "fr", ["attendu : —", 'obtenu  : {"jsonrpc": "2.0", "id": null, "result": {}}']),
    ("the server answers a notification", "en", ["expected: —", 'actual:   {"jsonrpc": "2.0", "id": null, "result": {}}']),
    ("the server answers a line without method with id null", "fr", ["attendu : id = 25", "obtenu  : id = null"]),
    ("the server answers a line without method with id null", "en", ["expected: id = 25", "actual:   id = null"]),
    ("the client adds the Answer to a text", "fr", ["attendu : le modèle dit : Réponse 42 du modèle de test",
                                                    'obtenu  : <- {"jsonrpc": "2.0", "id": 6, "error": {"code": -32601, '
                                                    '"message": "Méthode inconnue : resources/list"}}']),
    ("the client adds the Answer to a text", "en", ["expected: the model says: Answer 42 of the test model",
                                                    'actual:   <- {"jsonrpc": "2.0", "id": 6, "error": {"code": -32601, '
                                                    '"message": "Unknown method: resources/list"}}']),
    # The shape ask expects, as its hint says it (the given facts first), not a call to copy.
    ("the client asks with the question alone", "fr", ['attendu : ask([facts(…), {"role": "user", "content": "… '
                                                       '{"tools":{"listChanged":false}}"}], …)',
                                                       'obtenu  : "En une phrase, dites ce que peut faire…']),
    ("the client asks with the question alone", "en", ['expected: ask([facts(…), {"role": "user", "content": "… '
                                                       '{"tools":{"listChanged":false}}"}], …)',
                                                       'actual:   "En une phrase, dites ce que peut faire…']),
])
def test_expected_and_actual_show_json_that_differs(tmp_path, mistake, lang, shown):
    """What the first ✗ shows under its message is JSON (null, false, "1"), never Python's
    None or False, never two values that read the same (a count of 13 against 13), and never
    a word of the other language (the test model's answer is in the run's)."""
    kind, old, new, *_ = MISTAKES[mistake]
    report = run_some(lesson_folder(tmp_path, kind, (old, new)), f"{kind}.", lang=lang)
    lines = click.unstyle(render(report)).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("    ✗ "))
    # The test model's answer ends with a nonce of the run's (" #1a2b3c4d"): left out here.
    assert [re.sub(r" #[0-9a-f]{8}$", "", line.strip()) for line in lines[start + 2:start + 4]] == shown


@pytest.mark.parametrize(("mistake", "lang", "title"), [
    # A file that does not read is filed under that rule, not under the first table's check (issue 34).
    ("answers.toml with a word after an answer", "fr", "answers.toml se lit comme un fichier TOML"),
    ("answers.toml with a word after an answer", "en", "answers.toml reads as a TOML file"),
    ("the server answers a line without method with id null", "fr",
     "Une ligne avec un id mais sans method reçoit -32600 avec cet id, pas id null"),
    ("the server answers a line without method with id null", "en",
     "A line with an id but no method gets -32600 with that id, not id null"),
])
def test_the_first_failure_is_titled_by_the_rule_broken(tmp_path, mistake, lang, title):
    kind, old, new, *_ = MISTAKES[mistake]
    report = run_some(lesson_folder(tmp_path, kind, (old, new)), f"{kind}.", lang=lang)
    lines = click.unstyle(render(report)).splitlines()
    assert next(line for line in lines if line.startswith("    ✗ ")) == f"    ✗ {title}"


def test_a_lost_id_is_said_as_such_in_a_later_part_and_not_blamed_on_notifications(tmp_path):
    kind, old, new, *_ = MISTAKES["the server loses the id of its -32600"]
    report = run_some(lesson_folder(tmp_path, kind, (old, new)), "server.", lang="en")
    failing = {r.id: r.reason for r in report.results if r.status != PASSED}
    assert failing == {"server.reply-ids": "server.error_id_null",
                       "server.gate-before-initialize": "server.error_id_null",
                       "server.gate-while-waiting": "server.error_id_null"}


def test_a_client_that_stops_on_its_own_error_is_told_so_not_that_it_waited(tmp_path):
    """The kit's own client checks each reply's id: told the wrong reply number, it stops on the
    first reply, and is told that it stopped, with what it wrote."""
    source = (ROOT / "solutions" / "client.py").read_text(encoding="utf-8")
    old, new = "read_reply(line, len(replies) + 1)", "read_reply(line, len(replies))"
    shutil.copytree(ROOT / "solutions", tmp_path / "work")
    (tmp_path / "work" / "client.py").write_text(mutate(source, old, new), encoding="utf-8")
    report = run_some(tmp_path / "work", "client.", lang="en")
    closing = next(r for r in report.results if r.id == "client.closes-input")
    assert (closing.reason, closing.fields) == ("client.crashed_before_closing", {"code": 1}), closing.message
    assert closing.output == "Problem: reply 0: expected id 0, got id 1"


def test_expected_and_actual_show_both_replies(tmp_path):
    kind, old, new, check_id, _, english = MISTAKES["the server answers an unknown method with -32600"]
    report = run_some(lesson_folder(tmp_path, kind, (old, new)), check_id, lang="en")
    result = report.results[-1]
    assert result.message == english
    assert '"code": -32601' in result.expected and '"code": -32600' in result.actual
    assert result.hint.startswith("In the ready state, a method the server does not have")

def test_a_crash_on_a_message_that_moves_no_state_costs_only_the_checks_of_that_message(tmp_path):
    """A server that stops on every ping is given the rules session again without each ping it
    stopped on: the messages after them are still judged (issue 34: one mistake, one cost). The
    checks that fail are the stop itself and those whose message is a ping (id 0 and the line
    after the bad JSON are pings too)."""
    kind, old, new, *_ = MISTAKES["the server crashes on every ping"]
    report = run_some(lesson_folder(tmp_path, kind, (old, new)), "server.", lang="en")
    failed = sorted(r.id for r in report.results if r.status != PASSED)
    assert failed == ["server.id-zero", "server.keeps-running", "server.parse-error", "server.ping-every-state"], failed


def test_a_crash_on_every_notification_leaves_what_it_never_read_unjudged_not_failed(tmp_path):
    """A server that stops on each notification never reads the rest of its input: the bad line
    after it and the end of input wait for keeps-running, they are not failures of their own; nor
    is the same stop on the bad lines' notifications (not-a-request's, the gate's) or a check of
    notifications it never read."""
    kind, old, new, *_ = MISTAKES["the server forgets the return after a notification"]
    report = run_some(lesson_folder(tmp_path, kind, (old, new)), "server.", lang="en")
    failed = sorted(r.id for r in report.results if r.status == "failed")
    assert failed == ["server.keeps-running"], failed
    waiting = {r.id: r.message for r in report.results if r.id in (
        "server.exits-at-eof", "server.parse-error", "server.not-a-request", "server.notifications-unanswered")}
    assert all(r.status == "skipped" for r in report.results if r.id in waiting), waiting


def test_a_ping_answered_with_null_costs_the_ping_check_only(tmp_path):
    """The request of id 0 is a ping: its reply came, with ping's mistake in it, which is not id 0's."""
    kind, old, new, *_ = MISTAKES["the server answers ping with null"]
    report = run_some(lesson_folder(tmp_path, kind, (old, new)), "server.", lang="en")
    assert [r.id for r in report.results if r.status != PASSED] == ["server.ping-every-state"]


def test_an_error_code_written_as_text_costs_the_shape_and_that_reply_only(tmp_path):
    """A code written as text in one reply breaks part 1's rule (and the checks that need it), and
    the check of that reply; the other replies are still judged (issue 34: one mistake, one cost)."""
    kind, old, new, *_ = MISTAKES["the server writes an error code as text"]
    report = run_some(lesson_folder(tmp_path, kind, (old, new)), "server.", lang="en")
    failed = sorted(r.id for r in report.results if r.status != PASSED)
    assert failed == ["server.flushes-each-reply", "server.json-rpc-replies", "server.reply-ids",
                      "server.unknown-method"], failed


def test_every_error_code_written_as_text_costs_part_one_and_no_bad_line_check(tmp_path):
    """fail() writing str(code) for every error: the replies' shape (part 1) names it; the bad
    lines' check does not blame the same "-32600" for being the wrong code."""
    folder = solutions_copy(tmp_path / "w", "server.py", 'error = {"code": code, "message": text}',
                            'error = {"code": str(code), "message": text}')
    report = run_some(folder, "server.", lang="fr")
    failed = sorted(r.id for r in report.results if r.status != PASSED)
    assert failed == ["server.flushes-each-reply", "server.json-rpc-replies", "server.reply-ids"], failed


def test_the_model_line_printed_with_two_arguments_passes_as_the_arrows_do(tmp_path):
    """print("le modèle dit :", texte) puts one space between its arguments: a space the
    lesson's line has anyway, counted once, as in the "-> " and "<- " lines."""
    change = ('print("le modèle dit : " + r.text)', 'print("le modèle dit : ", r.text)')
    report = run_some(lesson_folder(tmp_path, "client", change), "client.", lang="fr")
    assert report.score == report.max_score, [(r.id, r.message) for r in report.results if r.status != PASSED]


def test_a_server_not_on_the_skeleton_is_not_called_by_the_skeletons_names(tmp_path):
    """A lesson-style server (envoyer, initialiser…) whose replies break part 1's rule: part 2
    waits for that rule, and never reports the skeleton's functions missing (issue 34's walks)."""
    change = ("    if isinstance(msg, dict):", '    if type(msg) == "dict":')  # JavaScript's typeof: never true
    folder = lesson_folder(tmp_path, "server", change)
    for given in ("jsonrpc_lines.py", "server_replies.py"):  # beside it, as in a student's copy of exercises/
        shutil.copyfile(ROOT / "solutions" / given, folder / given)
    report = run_some(folder, "server.", lang="en")
    part_two = [r for r in report.results if r.task == "server-2"]
    assert part_two and all(r.status == "skipped" for r in part_two), [(r.id, r.status, r.message) for r in part_two]
    assert not any("has no attribute" in (r.output or "") + r.message for r in report.results)


def test_a_gate_that_lets_waiting_through_is_not_taken_for_a_state_typo(tmp_path):
    """The reference server holds "initialize" once and "not_initialized" elsewhere: close
    words, but neither is a state's name, so the plain gate message is the first ✗, not a typo."""
    folder = tmp_path / "work"
    shutil.copytree(ROOT / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
    server = folder / "server.py"
    server.write_text(mutate(server.read_text(encoding="utf-8"), '    if state != "pret":\n',
                             '    if state == "nouveau":\n'), encoding="utf-8")
    named, message = first_failure(run_some(folder, "server.", lang="fr"))
    assert (named, message.splitlines()[0]) == (
        "server.gate-while-waiting", "Réponse à la requête tools/list (id 4) : un result, là où la leçon attend l’erreur "
        "-32600 : votre serveur accepte ce que la leçon refuse.")


def solutions_copy(folder, file: str = "", old: str = "", new: str = ""):
    shutil.copytree(ROOT / "solutions", folder)
    if file:
        (folder / file).write_text(mutate((folder / file).read_text(encoding="utf-8"), old, new), encoding="utf-8")
    return folder


# Mistakes in the skeleton's client.py (its scenario() is called directly when the program stops
# early): the first ✗ names the cause in each language, and the mistake costs only the checks of
# the rule it breaks (part 2's sending never fails part 1's scenario).
SKELETON_MISTAKES = {
    "initialize returns nothing": (
        '    return {"id": request_id, "method": "initialize", "params": params}',
        '    {"id": request_id, "method": "initialize", "params": params}', "client.seven-messages",
        "Le message 2 vaut None : une fonction sans return rend None", "Message 2 is None: a function without return"),
    "initialize returns a tuple": (
        '    return {"id": request_id, "method": "initialize", "params": params}',
        '    return {"id": request_id, "method": "initialize", "params": params},', "client.seven-messages",
        "Le message 2 est une liste, pas un dict : une virgule après le dict", "Message 2 is a list, not a dict: a comma"),
    "the scenario lists a message as JSON text": (
        '        {"id": 1, "method": "tools/list"},', "        '{\"id\": 1, \"method\": \"tools/list\"}',",
        "client.seven-messages", "Le message 1 est un texte, pas un dict", "Message 1 is a text, not a dict"),
    "the client reads a reply before sending": (
        "    for message in scenario():", "    next_line(server)\n    for message in scenario():",
        "client.jsonrpc-on-every-message", "Le client a attendu une réponse avant d’envoyer un seul message",
        "The client waited for a reply before sending a single message"),
    "the client sends six messages of seven": (
        "    for message in scenario():", "    for message in scenario()[:6]:", "client.closes-input",
        "Le serveur n’a reçu que 6 message(s) sur sept, et a répondu à chaque requête",
        "The server received only 6 message(s) of seven, and answered each request"),
    "the client waits for each reply in turn": (
        '        server.stdin.write(line + "\\n")\n    server.stdin.flush()\n    replies = []\n',
        '        server.stdin.write(line + "\\n")\n        server.stdin.flush()\n'
        '        print("<- " + next_line(server), flush=True)\n    replies = []\n', "client.closes-input",
        "Le serveur n’a reçu que 5 message(s) sur sept", "The server received only 5 message(s) of seven"),
    "the client writes str() of its messages": (
        '        server.stdin.write(line + "\\n")', '        server.stdin.write(str({"jsonrpc": "2.0", **message}) + "\\n")',
        "client.jsonrpc-on-every-message", "Le serveur a reçu en message 1 le dict de Python écrit par str()",
        "The server received as message 1 Python's dict written by str()"),
    "the client writes its dicts to the server's input": (
        '        server.stdin.write(line + "\\n")', '        server.stdin.write({"jsonrpc": "2.0", **message})',
        "client.jsonrpc-on-every-message", "Le client s’est arrêté sur une erreur (code 1) avant d’envoyer un message",
        "The client stopped on an error (code 1) before sending a message"),
    "the client waits for the server's end before closing its input": (
        "    server.stdin.close()\n", "    server.wait()\n    server.stdin.close()\n", "client.closes-input",
        "il attend la fin du serveur avant d’avoir fermé son entrée",
        "it waits for the server's end before it has closed its input"),
    "the client writes jsonrpc as a number": (
        '{"jsonrpc": "2.0", **message}', '{"jsonrpc": 2.0, **message}', "client.jsonrpc-on-every-message",
        'Le message 1 a "jsonrpc": 2.0 au lieu de "2.0", un texte entre guillemets.',
        'Message 1 has "jsonrpc": 2.0 instead of "2.0", a text in quotes.'),
    "the client writes the newline before each message": (
        '        server.stdin.write(line + "\\n")', '        server.stdin.write("\\n" + line)', "client.closes-input",
        "Le serveur a reçu du client une ligne qui ne finit jamais", "The server received from the client one line that never ends"),
    "the question ends with str() of the capabilities": (
        'TEXT["question"] + to_json(capabilities)', 'TEXT["question"] + str(capabilities)', "client.asks-model",
        "La question finit par le dict de Python (apostrophes, False) écrit par str()",
        "The question ends with Python's dict (single quotes, False) written by str()"),
    "the client swaps the sample and the cap": (
        'TEXT["sample"], 60)', '60, TEXT["sample"])', "client.asks-model",
        "ask reçoit l’échantillon à la place de la limite", "ask gets the sample in place of the cap"),
    "the client writes the cap in quotes": (
        'TEXT["sample"], 60)', 'TEXT["sample"], "60")', "client.asks-model",
        'ask reçoit max_tokens "60", un texte, au lieu du nombre 60', 'ask gets max_tokens "60", a text, instead of the number 60'),
    "the client gives the question as the sample": (
        'question], TEXT["sample"], 60)', 'question], question["content"], 60)', "client.gives-sample",
        "ask reçoit la question comme échantillon", "ask gets the question as its sample"),
    "the client gives facts the whole replies": (
        "ask([facts(capabilities), question]", "ask([facts(replies), question]", "client.asks-model",
        "Le message système n’est pas celui des capacités annoncées", "The system message is not the one of the announced"),
    "the client prints the answer without its words": (
        'print(TEXT["model_says"] + answer.text, flush=True)', "print(answer.text, flush=True)",
        "client.prints-model-answer", "Le client affiche la réponse du modèle sans « le modèle dit : » devant",
        "The client prints the model's answer without \"the model says:\" before it"),
}


# Where one mistake breaks more than one rule: nothing sent fails each of part 2's checks, and a
# message the server cannot read stops the client before it closes the server's input (said with
# the message's own words, as the cause).
SENDING = ["client.jsonrpc-on-every-message", "client.closes-input"]
NOTHING_SENT = SENDING[:1] + ["client.prints-exchange"] + SENDING[1:]
ALSO_FAILING = {"the client reads a reply before sending": NOTHING_SENT,
                "the client writes its dicts to the server's input": NOTHING_SENT,
                "the client writes str() of its messages": SENDING, "the client writes jsonrpc as a number": SENDING}


@pytest.mark.parametrize("mistake", sorted(SKELETON_MISTAKES))
def test_a_skeleton_client_mistake_is_named_once_by_its_cause(tmp_path, mistake):
    old, new, check_id, french, english = SKELETON_MISTAKES[mistake]

    def check(lang: str):
        return run_some(solutions_copy(tmp_path / lang, "client.py", old, new), "client.", lang=lang)

    with ThreadPoolExecutor(max_workers=2) as pool:
        reports = dict(zip(("fr", "en"), pool.map(check, ("fr", "en"))))
    for lang, words in (("fr", french), ("en", english)):
        named, message = first_failure(reports[lang])
        assert (named, words in message) == (check_id, True), (lang, named, message)
        failing = [r.id for r in reports[lang].results if r.status != PASSED]
        assert failing == ALSO_FAILING.get(mistake, [check_id]), (lang, failing)  # no knock-on failure


@pytest.mark.parametrize(("lang", "stopped", "gloss"), [
    ("fr", "Le client s’est arrêté sur une erreur (code 1) avant d’envoyer un message : ce qu’il a écrit, ci-dessous, "
           "dit pourquoi.", "une fonction nommée sans ses parenthèses (scenario au lieu de scenario()) n’est pas appelée"),
    ("en", "The client stopped on an error (code 1) before sending a message: what it wrote, below, says why.",
           "a function named without its parentheses (scenario instead of scenario()) is not called")])
def test_a_client_that_stops_before_sending_is_told_so_with_its_error_explained(tmp_path, lang, stopped, gloss):
    folder = solutions_copy(tmp_path / "w", "client.py", "for message in scenario():", "for message in scenario:")
    report = run_some(folder, "client.", lang=lang)
    named, message = first_failure(report)
    assert (named, message.splitlines()[0]) == ("client.jsonrpc-on-every-message", stopped)
    assert gloss in message and "TypeError: 'function' object is not iterable" in message
    assert not next(r for r in report.results if r.id == named).hint  # no hint about the messages' jsonrpc


def test_an_older_handouts_facts_are_taken_and_leaving_them_out_is_still_named(tmp_path):
    """An older kit's model_setup.py words facts() otherwise: the facts it gives are taken (the
    check matches the student's own given file, not this kit's wording); no system message at
    all is still named, with that file or this kit's."""
    older = ("model_setup.py", "Réponse juste : « Un serveur", "Ce que dit la réponse : « Un serveur")
    left_out = ("client.py", "ask([facts(capabilities), question]", "ask([question]")
    for name, changes, reason in (("older", [older], ""), ("older-without", [older, left_out], "client.question_lacks_facts"),
                                  ("without", [left_out], "client.question_lacks_facts")):
        folder = solutions_copy(tmp_path / name)
        for file, old, new in changes:
            (folder / file).write_text(mutate((folder / file).read_text(encoding="utf-8"), old, new), encoding="utf-8")
        report = run_some(folder, "client.", lang="fr")
        asks = next(r for r in report.results if r.id == "client.asks-model")
        assert (name, asks.reason) == (name, reason), asks.message


@pytest.mark.parametrize(("old", "new", "reason"), [
    ("announced_capabilities(replies)", "announced_capabilities(replies[2])", "client.capabilities_of_one_reply"),
    ("ask([facts(capabilities), question], TEXT[\"sample\"], 60)",
     "ask([facts(capabilities), {\"role\": \"user\", \"content\": TEXT[\"sample\"]}], question[\"content\"], 60)",
     "client.question_as_sample"),
    ("replies.append(read_reply(line, len(replies) + 1))", "read_reply(line, len(replies) + 1)\n        replies.append(line)",
     "client.replies_not_read")])
@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_client_that_hands_ask_or_the_given_reader_the_wrong_thing_is_told_which(tmp_path, old, new, reason, lang):
    from lab.checks.texts import say

    folder = solutions_copy(tmp_path / "w", "client.py", old, new)
    named, message = first_failure(run_some(folder, "client.", lang=lang))
    assert (named, message.splitlines()[0]) == ("client.asks-model", say(lang, reason))


@pytest.mark.parametrize(("lang", "message"), [
    ("fr", "Le client lit server.stdout lui-même, alors que watch(server) (fourni) le lit déjà : les deux se partagent "
           "les lignes du serveur, et chacun en perd. Lisez chaque réponse avec next_line(server)."),
    ("en", "The client reads server.stdout itself, while watch(server) (given) already reads it: the two share the "
           "server's lines, and each loses some. Read each reply with next_line(server).")])
def test_a_client_that_reads_the_servers_output_beside_watch_is_told_so(tmp_path, lang, message):
    """Which reader gets which line is chance: the client stops on a wrong id, or waits out its limit."""
    folder = solutions_copy(tmp_path / "w", "client.py", "line = next_line(server)",
                            'line = server.stdout.readline().rstrip("\\n")')
    assert first_failure(run_some(folder, "client.", lang=lang))[1].splitlines()[0] == message


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_an_older_handouts_printed_wording_passes(tmp_path, lang):
    """A class working from an older handout prints that handout's words: the fallback line of its
    model.py, the reasons of its model_setup.py and the "model says" prefix of its client.py are
    matched as the student's copy words them, not only as this kit does."""
    folder = solutions_copy(tmp_path / "older")
    for file, old, new in (
            ("model.py", "Échantillon enregistré : aucun modèle n’a répondu", "Réponse de secours : le modèle s’est tu"),
            ("model.py", "Recorded sample: no model answered", "Fallback answer: the model kept silent"),
            ("model_setup.py", '"connexion refusée par {address}"', '"{address} a refusé la connexion"'),
            ("model_setup.py", '"connection refused by {address}"', '"{address} turned the connection down"'),
            ("client.py", '"le modèle dit : "', '"réponse du modèle : "'),
            ("client.py", '"the model says: "', '"the model answers: "')):
        (folder / file).write_text(mutate((folder / file).read_text(encoding="utf-8"), old, new), encoding="utf-8")
    report = run_some(folder, ("model.", "client.prints-model-answer"), lang=lang)
    assert {r.id: r.status for r in report.results} == {
        "model.request": PASSED, "model.answers": PASSED, "model.refused": PASSED, "model.http-error": PASSED,
        "model.slow": PASSED, "client.prints-model-answer": PASSED}, [r.message for r in report.results]


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_client_that_prints_the_test_models_words_without_asking_earns_nothing(tmp_path, lang):
    """The test model's answer carries a nonce of the run's: a client printing the kit's words for
    it, read in the kit's sources, prints what no model answered."""
    from lab.checks.texts import say

    printed = f'print(TEXT["model_says"] + {say(lang, "client.data.answer")!r}, flush=True)'
    folder = solutions_copy(tmp_path / "w", "client.py", 'print(TEXT["model_says"] + answer.text, flush=True)', printed)
    result = next(r for r in run_some(folder, "client.", lang=lang).results if r.id == "client.prints-model-answer")
    assert (result.status, result.reason) == ("failed", "client.answer_not_printed")
