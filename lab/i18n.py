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
        "run.server": (
            "Le serveur à côté du client : lesson (server.py, la règle de la leçon) ou "
            "bonus (bonus_server.py, la règle de la spec)."
        ),
        "grade": (
            "Note une classe : lance les vérifications notées sur chaque SUBMISSION (un travail : "
            "une copie d’exercises/ remplie par un élève), en parallèle et sous limites (temps, CPU, "
            "mémoire, sortie). Écrit un dossier par travail sous --out, et summary.csv."
        ),
        "grade.format": "Format des résultats : gradescope, exercism (GitHub Classroom), junit ou csv.",
        "grade.out": "Dossier où écrire les résultats (créé si besoin).",
        "grade.jobs": "Travaux notés en même temps (par défaut : deux par cœur).",
        "grade.timeout": "Secondes allouées à chaque travail ; au-delà il est arrêté et les vérifications restantes valent 0.",
        "grade.memory": "Mémoire maximale de chaque processus d’un travail, en Mio.",
        "gradescope_bundle": (
            "Écrit le zip d’autograder Gradescope (setup.sh installe le kit, run_autograder "
            "note /autograder/submission et écrit /autograder/results/results.json)."
        ),
        "gradescope_bundle.out": "Chemin du zip à écrire.",
        "report": (
            "Refait le rapport de classe OUT/report.html (une page à ouvrir dans un navigateur) "
            "à partir d’un dossier écrit par `lab grade`, dans n’importe quel format."
        ),
        "check": (
            "Vérifie le travail de DOSSIER (par défaut : exercises) : serveur, client, assistant du "
            "modèle et réponses de la leçon. Code de sortie 0 seulement si tout réussit."
        ),
        "check.watch": "Relance les vérifications à chaque enregistrement d’un fichier (Ctrl-C pour arrêter).",
        "check.json": "Affiche le résultat en JSON (le modèle de résultats du kit).",
        "check.bonus": "Vérifie aussi l’étape bonus (bonus_server.py et les vrais clients MCP : plus lent).",
        "exercises": "Régénère exercises/ à partir des marqueurs de solutions/.",
        "exercises.check": "Ne change rien : échoue si exercises/ n’est pas à jour.",
    },
    "en": {
        "lab": "The MCP handshake lab: run the scenario, check a student's work, grade a class.",
        "lang": "Language of the messages: fr or en (else LAB_LANG, else fr).",
        "run": (
            "Run the scripted client of DIR (default: solutions) against the server beside it: "
            "seven messages, six replies, then the model's view."
        ),
        "run.timeout": "Seconds before a stuck client is stopped.",
        "run.server": (
            "The server beside the client: lesson (server.py, the lesson's rule) or "
            "bonus (bonus_server.py, the spec's rule)."
        ),
        "grade": (
            "Grade a class: run the graded checks on every SUBMISSION (a copy of exercises/ "
            "that a student filled in), in parallel and under limits (time, CPU, memory, "
            "output). Writes one folder per submission under --out, and summary.csv."
        ),
        "grade.format": "Results format: gradescope, exercism (GitHub Classroom), junit or csv.",
        "grade.out": "Folder to write the results into (created if needed).",
        "grade.jobs": "Submissions graded at the same time (default: two per core).",
        "grade.timeout": "Seconds allowed per submission; past that it is stopped and unchecked items score 0.",
        "grade.memory": "Largest memory of each process of a submission, in MiB.",
        "gradescope_bundle": (
            "Write the Gradescope autograder zip (setup.sh installs the kit, run_autograder "
            "grades /autograder/submission and writes /autograder/results/results.json)."
        ),
        "gradescope_bundle.out": "Path of the zip to write.",
        "report": (
            "Rebuild the class report OUT/report.html (a page to open in a browser) from a "
            "folder written by `lab grade`, in any format."
        ),
        "check": (
            "Check the work in DIR (default: exercises): server, client, model helper and the "
            "lesson's answers. Exit code 0 only when everything passes."
        ),
        "check.watch": "Run the checks again each time a file is saved (Ctrl-C to stop).",
        "check.json": "Print the result as JSON (the kit's result model).",
        "check.bonus": "Also check the bonus step (bonus_server.py and the real MCP clients: slower).",
        "exercises": "Regenerate exercises/ from the markers in solutions/.",
        "exercises.check": "Change nothing: fail when exercises/ is out of date.",
    },
}

MESSAGES = {
    "fr": {
        "no_folder": "Dossier introuvable : {path}",
        "no_file": "Fichier introuvable : {path}",
        "run.timeout": "Le client tourne encore après {seconds:g} s : arrêté.",
        "grade.not_a_folder": "Pas un dossier lisible : {path}. Rien n’a pu être vérifié.",
        "grade.timeout": (
            "Les vérifications n’ont pas fini en {seconds:g} s (code bloqué ou en boucle ?) : "
            "arrêtées. Ce qui n’a pas pu être vérifié vaut 0."
        ),
        "grade.too_much_output": (
            "Plus de {limit} Mio de sortie : résultats illisibles. Ce qui n’a pas pu être vérifié vaut 0."
        ),
        "grade.crashed": (
            "Les vérifications se sont arrêtées (code {code}) sans résultat lisible. "
            "Ce qui n’a pas pu être vérifié vaut 0.\n{stderr}"
        ),
        "grade.not_reported": "Vérification absente du rapport : comptée 0.",
        "grade.expected": "Attendu : {value}",
        "grade.actual": "Obtenu : {value}",
        "grade.hint": "Piste : {value}",
        "grade.output": "Sortie :\n{value}",
        "grade.summary": "Note : {score}/{max}",
        "grade.done": "{count} travail(s) noté(s) en {seconds:.1f} s ({rate:.2f} par seconde). Résumé : {path}",
        "grade.no_checks": "Attention : la liste des vérifications est inconnue (le moteur ne la donne pas et les solutions n’ont pas pu être notées).",
        "gradescope_bundle.done": "Zip d’autograder écrit : {path}",
        "report.done": "Rapport de classe écrit : {path}",
        "report.missing": "Dossier introuvable : {path}. Donnez le dossier --out de `lab grade`.",
        "report.empty": (
            "Aucun résultat de notation dans {path} (ni summary.csv ni fichier de résultats). "
            "Lancez d’abord `lab grade ... --out {path}`."
        ),
        "bundle.failed": "L’autograder n’a pas pu lancer lab : voir la sortie de run_autograder.",
        "check.heading": "Vérification de {target}",
        "check.expected": "attendu : ",
        "check.actual": "obtenu  : ",
        "check.output": "sortie  : ",
        "check.hint": "piste   : ",
        "check.score": "Score : {score}/{max}  ({seconds:.1f} s)",
        "check.all_passed": "Tout est juste. Bravo !",
        "check.keep_going": "Corrigez la première erreur de chaque partie, puis relancez `lab check`.",
        "check.error": "La vérification n’a pas pu aller au bout : {error}",
        "check.watching": "J’attends un enregistrement dans {target}… (Ctrl-C pour arrêter)",
        "exercises.written": "Écrit : {names}",
        "exercises.in_sync": "exercises/ est à jour.",
        "exercises.out_of_sync": "exercises/ n’est pas à jour (lancez `lab exercises`) :",
    },
    "en": {
        "no_folder": "Folder not found: {path}",
        "no_file": "File not found: {path}",
        "run.timeout": "The client was still running after {seconds:g} s: stopped.",
        "grade.not_a_folder": "Not a readable folder: {path}. Nothing could be checked.",
        "grade.timeout": (
            "The checks did not finish within {seconds:g} s (stuck or looping code?): stopped. "
            "Whatever could not be checked scores 0."
        ),
        "grade.too_much_output": (
            "More than {limit} MiB of output: the results could not be read. "
            "Whatever could not be checked scores 0."
        ),
        "grade.crashed": (
            "The checks stopped (exit code {code}) without readable results. "
            "Whatever could not be checked scores 0.\n{stderr}"
        ),
        "grade.not_reported": "Check missing from the report: scored 0.",
        "grade.expected": "Expected: {value}",
        "grade.actual": "Actual: {value}",
        "grade.hint": "Hint: {value}",
        "grade.output": "Output:\n{value}",
        "grade.summary": "Score: {score}/{max}",
        "grade.done": "{count} submission(s) graded in {seconds:.1f} s ({rate:.2f} per second). Summary: {path}",
        "grade.no_checks": "Warning: the list of checks is unknown (the engine does not give it and the solutions could not be graded).",
        "gradescope_bundle.done": "Autograder zip written: {path}",
        "report.done": "Class report written: {path}",
        "report.missing": "Folder not found: {path}. Give the --out folder of `lab grade`.",
        "report.empty": (
            "No grading results in {path} (no summary.csv, no results file). "
            "Run `lab grade ... --out {path}` first."
        ),
        "bundle.failed": "The autograder could not run lab: see run_autograder's output.",
        "check.heading": "Checking {target}",
        "check.expected": "expected: ",
        "check.actual": "actual:   ",
        "check.output": "output:   ",
        "check.hint": "hint:     ",
        "check.score": "Score: {score}/{max}  ({seconds:.1f} s)",
        "check.all_passed": "All correct. Well done!",
        "check.keep_going": "Fix the first error of each part, then run `lab check` again.",
        "check.error": "The check could not finish: {error}",
        "check.watching": "Waiting for a save in {target}… (Ctrl-C to stop)",
        "exercises.written": "Written: {names}",
        "exercises.in_sync": "exercises/ is up to date.",
        "exercises.out_of_sync": "exercises/ is out of date (run `lab exercises`):",
    },
}


def text(lang: str, key: str, **fields: object) -> str:
    return MESSAGES[lang][key].format(**fields)
