"""The lesson's serveur2.js, written in Python as a student who follows the lesson would.

Independent of solutions/. tests/test_checks_mistakes.py checks that it scores full
marks and makes the lesson's classic mistakes from it by replacing one line: keep each
replaced line unique in this file.
"""

import json
import sys

VERSIONS = ["2025-03-26", "2024-11-05"]
etat = "nouveau"


def envoyer(m):
    print(json.dumps({"jsonrpc": "2.0", **m}), flush=True)


def repondre(id, result):
    envoyer({"id": id, "result": result})


def echec(id, code, texte, data=None):
    erreur = {"code": code, "message": texte}
    if data is not None:
        erreur["data"] = data
    envoyer({"id": id, "error": erreur})


def initialiser(msg):
    global etat
    demandee = (msg.get("params") or {}).get("protocolVersion")
    if demandee not in VERSIONS:
        return echec(msg["id"], -32602, "Version non prise en charge", {"requested": demandee, "supported": VERSIONS})
    etat = "attente"
    repondre(msg["id"], {"protocolVersion": demandee, "capabilities": {"tools": {"listChanged": False}},
                         "serverInfo": {"name": "cantine", "version": "0.2"}})


def traiter(msg):
    global etat
    if "id" not in msg:
        if msg.get("method") == "notifications/initialized" and etat == "attente":
            etat = "pret"
        return
    if msg.get("method") == "ping":
        return repondre(msg["id"], {})
    if msg.get("method") == "initialize":
        return initialiser(msg) if etat == "nouveau" else echec(msg["id"], -32600, "Déjà initialisé")
    if etat in ("nouveau", "attente"):
        return echec(msg["id"], -32600, "Pas initialisé")
    if msg.get("method") == "tools/list":
        return repondre(msg["id"], {"tools": []})
    echec(msg["id"], -32601, "Méthode inconnue : " + str(msg.get("method")))


for ligne in sys.stdin:
    try:
        msg = json.loads(ligne)
    except ValueError:
        echec(None, -32700, "Erreur d’analyse")
        continue
    if isinstance(msg, dict):  # une ligne JSON qui n’est pas un objet n’est pas une requête
        traiter(msg)
