"""Every text the kit shows a person, in French (the default) and English."""

from __future__ import annotations

HELP = {
    "fr": {
        "lab": "Le labo de la poignée de main MCP : lancer le scénario, vérifier un travail, noter une classe.",
        "lang": "Langue des messages : fr ou en (sinon LAB_LANG, sinon fr).",
        "run": (
            "Lance le client scripté de DOSSIER (par défaut : solutions) contre le serveur "
            "posé à côté : sept messages, six réponses, puis l’avis du modèle."
        ),
        "run.timeout": "Secondes avant d’arrêter un client bloqué.",
    },
    "en": {
        "lab": "The MCP handshake lab: run the scenario, check a student's work, grade a class.",
        "lang": "Language of the messages: fr or en (else LAB_LANG, else fr).",
        "run": (
            "Run the scripted client of DIR (default: solutions) against the server beside it: "
            "seven messages, six replies, then the model's view."
        ),
        "run.timeout": "Seconds before a stuck client is stopped.",
    },
}

MESSAGES = {
    "fr": {
        "no_folder": "Dossier introuvable : {path}",
        "no_file": "Fichier introuvable : {path}",
        "run.timeout": "Le client tourne encore après {seconds:g} s : arrêté.",
    },
    "en": {
        "no_folder": "Folder not found: {path}",
        "no_file": "File not found: {path}",
        "run.timeout": "The client was still running after {seconds:g} s: stopped.",
    },
}


def text(lang: str, key: str, **fields: object) -> str:
    return MESSAGES[lang][key].format(**fields)
