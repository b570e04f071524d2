"""The lesson's client2.js, written in Python as a student who follows the lesson would.

Independent of solutions/: it sends the seven messages at once, prints each reply as it
comes, closes the server's input after the sixth, then asks the model. Mutated one line
at a time by tests/test_checks_mistakes.py: keep each replaced line unique.
"""

import json
import subprocess
import sys
from pathlib import Path

from model import ask
from model_setup import facts

serveur = subprocess.Popen([sys.executable, str(Path(__file__).parent / "server.py")],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def init(id, version):
    return {"id": id, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "demo", "version": "0.1"}}}


scenario = [
    {"id": 1, "method": "tools/list"},
    init(2, "1999-01-01"),
    init(3, "2024-11-05"),
    {"id": 4, "method": "tools/list"},
    {"method": "notifications/initialized"},
    {"id": 5, "method": "tools/list"},
    {"id": 6, "method": "resources/list"},
]

for m in scenario:
    plein = {"jsonrpc": "2.0", **m}
    print("-> " + json.dumps(plein))
    serveur.stdin.write(json.dumps(plein) + "\n")
serveur.stdin.flush()

vues = []
for ligne in serveur.stdout:
    ligne = ligne.rstrip("\n")
    print("<- " + ligne)
    vues.append(json.loads(ligne))
    if len(vues) == 6:
        serveur.stdin.close()
serveur.wait()

capacites = json.dumps(vues[2]["result"]["capabilities"])
q = "En une phrase, dites ce que peut faire un serveur qui annonce ces capacités : " + capacites
r = ask([facts(vues[2]["result"]["capabilities"]), {"role": "user", "content": q}], "Il peut lister des outils, et il ne dit pas que sa liste va changer.", 60)
print("le modèle dit : " + r.text)
