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
            "Note une classe : lance les vérifications notées sur chaque TRAVAIL ("
            "une copie d’exercises/ remplie par un élève), en parallèle et sous limites (temps, CPU, "
            "mémoire, sortie). Écrit un dossier par travail sous --out, et summary.csv."
        ),
        "grade.format": "Format des résultats : gradescope, exercism, classroom (GitHub Classroom), junit ou csv.",
        "grade.out": "Dossier où écrire les résultats (créé si besoin).",
        "grade.jobs": "Travaux notés en même temps (par défaut : trois par cœur, dans les limites de processus et de mémoire de la machine).",
        "grade.timeout": "Secondes allouées à chaque travail ; au-delà il est arrêté et les vérifications restantes valent 0.",
        "grade.no_sandbox": "Noter sans isoler le code étudiant (bubblewrap) : il tourne avec vos droits. Machine jetable seulement.",
        "grade.no_preload": "Démarrer chaque processus comme un nouvel interpréteur (sans préchargeur ni zygote) : plus lent, même isolation.",
        "grade.force": "Tout noter à nouveau, même les travaux déjà notés dans --out.",
        "grade.memory": "Mémoire maximale de chaque processus d’un travail, en Mio.",
        "grade.show": "Afficher aussi chaque résultat comme `lab check` (pour un journal de CI).",
        "gradescope_bundle": (
            "Écrit le zip d’autograder Gradescope (setup.sh installe le kit, run_autograder "
            "note /autograder/submission et écrit /autograder/results/results.json)."
        ),
        "gradescope_bundle.out": "Chemin du zip à écrire.",
        "gradescope_bundle.visibility": "Quand Gradescope montre les résultats aux étudiants : visible (tout de suite), after_due_date, after_published ou hidden.",
        "gradescope_run": "Noter un envoi Gradescope : le seul dossier qui contient server.py, même profond ; écrire results.json.",
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
        "exercises": (
            "Écrit les fichiers à remplir dans exercises/, sous le dossier courant : seulement ceux qui "
            "manquent, jamais par-dessus votre travail. Lancé depuis la copie du dépôt du kit, les "
            "régénère à partir des marqueurs des solutions."
        ),
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
        "grade.format": "Results format: gradescope, exercism, classroom (GitHub Classroom), junit or csv.",
        "grade.out": "Folder to write the results into (created if needed).",
        "grade.jobs": "Submissions graded at the same time (default: three per core, within the host's process and memory limits).",
        "grade.timeout": "Seconds allowed per submission; past that it is stopped and unchecked items score 0.",
        "grade.no_sandbox": "Grade without the sandbox (bubblewrap): student code runs with your rights. Throwaway machines only.",
        "grade.no_preload": "Start every process as a new interpreter (no preloader, no zygote): slower, the same isolation.",
        "grade.force": "Grade everything again, even submissions already graded in --out.",
        "grade.memory": "Largest memory of each process of a submission, in MiB.",
        "grade.show": "Also print each result as `lab check` shows it (for a CI log).",
        "gradescope_bundle": (
            "Write the Gradescope autograder zip (setup.sh installs the kit, run_autograder "
            "grades /autograder/submission and writes /autograder/results/results.json)."
        ),
        "gradescope_bundle.out": "Path of the zip to write.",
        "gradescope_bundle.visibility": "When Gradescope shows the results to students: visible (at once), after_due_date, after_published or hidden.",
        "gradescope_run": "Grade a Gradescope upload: the one folder holding server.py, even deep; write results.json.",
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
        "exercises": (
            "Write the files to fill in into exercises/, under the current folder: only the missing "
            "ones, never over your work. Run from the kit's own checkout, regenerate them from the "
            "markers in the solutions."
        ),
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
        "grade.bonus_not_attempted": "Bonus non tenté : il n’y a pas de fichier {file}.",
        "grade.no_sandbox.platform": (
            "lab grade isole chaque travail avec bubblewrap, qui n’existe que sous Linux. "
            "Utilisez le correcteur docker (docker compose --profile grade run grader), "
            "ou --no-sandbox sur une machine jetable."
        ),
        "grade.copy_failed": "La copie privée de ce travail a échoué côté correcteur ({reason}).",
        "grade.output_failed": "Les résultats de ce travail n’ont pas pu être écrits ({reason}).",
        "grade.no_sdk": (
            "lab grade --bonus fait tourner le client du SDK Python mcp, que ce Python ne peut pas importer "
            "(module {missing}) : ses deux vérifications vaudraient 0 pour toute la classe. Installez-le dans "
            "l’environnement du kit (pip install 'mcp>=2.0'), puis relancez."
        ),
        "grade.no_inspector": (
            "lab grade --bonus fait tourner l’Inspector MCP trouvé avant de noter, dans le cache de npx, "
            "jamais npx dans le dossier d’un travail : il n’y est pas. Installez-le une fois (réseau "
            "nécessaire) : npx --yes --package {package} --call true, puis relancez."
        ),
        "grade.no_sandbox.missing": (
            "lab grade isole chaque travail avec bubblewrap (bwrap), introuvable ici. Installez-le "
            "(apt-get install bubblewrap, dnf install bubblewrap), ou utilisez le correcteur docker "
            "(docker compose --profile grade run grader), ou --no-sandbox sur une machine jetable."
        ),
        "grade.no_sandbox.broken": (
            "lab grade isole chaque travail avec bubblewrap, mais bwrap ne démarre pas ici ({detail}). "
            "Les espaces de noms utilisateur sont-ils permis (sudo sysctl -w {setting}) ? "
            "Sinon utilisez le correcteur docker, ou --no-sandbox sur une machine jetable."
        ),
        "grade.no_sandbox.unreachable": (
            "Noté par root, le code étudiant tourne sous l’utilisateur sans droits nobody (uid 65534), "
            "qui ne peut pas lancer ce Python ({detail}). Installez le kit dans un environnement virtuel "
            "que tout utilisateur peut lire (pas sous /root ni sous un dossier 0700), ou notez sans être root."
        ),
        "grade.unsandboxed": (
            "ATTENTION : noté SANS isoler le code étudiant (--no-sandbox) : le code étudiant a tourné avec les droits "
            "du correcteur et pouvait fausser les notes."
        ),
        "grade.copy_files": "Plus de {limit} fichiers dans le travail : pas copié, rien n’a pu être vérifié.",
        "grade.copy_bytes": "Plus de {limit} Mio dans le travail : pas copié, rien n’a pu être vérifié.",
        "grade.copy_time": "Le travail n’a pas pu être copié dans le temps alloué : rien n’a pu être vérifié.",
        "grade.copy_depth": "Des dossiers imbriqués sur plus de {limit} niveaux dans le travail : pas copié, rien n’a pu être vérifié.",
        "grade.empty": "Travail vide ({files} : rien d’écrit) : rien n’a pu être vérifié.",
        "grade.resumed": "{count} travail(s) déjà noté(s) dans {path} : repris tels quels (--force pour tout refaire).",
        "grade.start_path": "Démarrage : code étudiant {isolation} ; vérifications {checks} ; exécuteur du modèle {model}.",
        "grade.start.sandboxed": "dans bubblewrap",
        "grade.start.unsandboxed": "SANS isolement",
        "grade.start.preloaded": "par le préchargeur",
        "grade.start.zygote": "par la zygote, rattaché à son isolement",
        "grade.start.new": "en nouvel interpréteur",
        "grade.start.new_unavailable": "en nouvel interpréteur (le préchargeur n’a pas démarré)",
        "grade.start.new_cannot_join": "en nouvel interpréteur (la zygote ne peut pas rejoindre un isolement ici)",
        "grade.kit_error": "Erreur du kit, pas une note : {reason}",
        "grade.classroom_kit_error": "Erreur du kit : pas de note cette fois, le travail n’est pas en cause",
        "grade.limit.pids": "la limite de processus et de threads de cette machine",
        "grade.too_few_pids": "Cette machine ne permet plus que {have} processus et threads ; noter un travail en demande jusqu’à {need}. Sous cette limite, un fork refusé chez un étudiant passerait pour son erreur : rien n’est noté. Relevez la limite (pids.max du groupe de contrôle, ulimit -u) ou notez ailleurs.",
        "grade.limit.memory": "la mémoire disponible",
        "grade.pids_used_up": "Vos programmes ont utilisé tous les processus et threads de ce travail ({pids}) : ce fichier n’a pas pu être lancé. Un programme ne lance que ce dont il a besoin, et l’attend.",
        "grade.limit.groups": "sous la limite de processus et de threads de cette machine, aucun groupe de contrôle (cgroup) ne peut être fait pour chaque travail, et un travail qui crée trop de processus en prendrait à ceux notés en même temps",
        "grade.one_at_a_time": "Un travail à la fois : {reason}. Pour en noter plusieurs à la fois, donnez à la correction un sous-arbre cgroup v2 délégué (contrôleurs memory et pids) ou lancez-la en root.",
        "grade.limit.cpu": "les processeurs disponibles",
        "grade.resource_failure": (
            "Le correcteur a manqué de ressources ({error}) après {attempts} essais : "
            "rien n’a été noté. Relancez avec moins de travaux en parallèle (--jobs)."
        ),
        "grade.bad_paths": "Ces chemins ne sont pas des dossiers de travaux, rien n’a été noté :",
        "grade.bad_path_missing": "  {path} : introuvable (un motif du shell qui ne correspondait à rien ?)",
        "grade.bad_path_not_folder": "  {path} : pas un dossier",
        "grade.bad_path_class": "  {path} : le dossier de la classe (ses sous-dossiers sont les travaux) : donnez-les un par un, {pattern}",
        "grade.jobs_lowered": "--jobs {asked} abaissé à {jobs} : {reason}.",
        "grade.probes_in_turn": "La limite de processus et threads de cette machine ({have}) ne permet pas d’essayer les fichiers d’un travail tous à la fois : ils sont essayés l’un après l’autre, un travail à la fois (plus lent, mêmes vérifications, mêmes notes).",
        "grade.counts": "Erreurs du kit : {kit} · travaux vides : {empty} · temps dépassé : {timeouts}.",
        "gradescope_bundle.no_folder": "Le dossier {path} n’existe pas : créez-le d’abord, ou choisissez un autre --out.",
        "grade.out_unwritable": "Impossible d’écrire les résultats dans {path} ({reason}) : rien n’a été noté. "
                                "Choisissez un autre dossier avec --out.",
        "grade.graded_folder": "Dossier noté : {folder}",
        "grade.case_only": "{found} trouvé, mais le fichier doit s’appeler {expected} (majuscules et minuscules comptent) : compté comme absent.",
        "grade.many_folders": (
            "Plusieurs dossiers contiennent {file} : {folders}. Rien n’a été noté : "
            "envoyez un seul dossier (ou seulement ses fichiers)."
        ),
        "grade.no_submission_file": (
            "Aucun fichier {file} dans l’envoi : rien n’a été noté. Attendus : {expected}. "
            "Dossiers cherchés : {folders}"
        ),
        "grade.expected": "Attendu : {value}",
        "grade.actual": "Obtenu : {value}",
        "grade.hint": "Piste : {value}",
        "grade.output": "Sortie :\n{value}",
        "grade.summary": "Note : {score}/{max}",
        "grade.done": "{count} travail(s) noté(s) en {seconds:.1f} s ({rate:.2f} par seconde). Résumé : {path}",
        "grade.done_reused": "{count} travail(s) noté(s) en {seconds:.1f} s, dont {reused} repris d’une notation précédente ({rate:.2f} noté(s) par seconde). Résumé : {path}",
        "grade.no_checks": "Attention : la liste des vérifications est inconnue (le moteur ne la donne pas et les solutions n’ont pas pu être notées).",
        "gradescope_bundle.done": "Zip d’autograder écrit : {path}",
        "report.done": "Rapport de classe écrit : {path}",
        "report.not_written": "summary.csv est écrit, mais pas le rapport de classe ({reason}) : libérez de la place, puis lab report.",
        "grade.interrupted": "Notation interrompue (signal {signal}) : les travaux déjà notés sont gardés dans {path} ; relancez la même commande lab grade pour noter le reste.",
        "summary.not_written": "summary.csv n’a pas pu être écrit ({reason}) : libérez de la place, puis relancez la même commande lab grade (les travaux déjà notés sont gardés).",
        "report.missing": "Dossier introuvable : {path}. Donnez le dossier --out de `lab grade`.",
        "report.older": "{path} a été noté par une autre version du kit : notez-le de nouveau avec celle-ci (`lab grade ... --out {path}`), puis lab report.",
        "report.empty": (
            "Aucun résultat de notation dans {path} (ni summary.csv ni fichier de résultats). "
            "Lancez d’abord `lab grade ... --out {path}`."
        ),
        "bundle.failed": "L’autograder n’a pas pu lancer lab : voir la sortie de run_autograder.",
        "bundle.not_graded": "Rien n’a été noté, et aucun code étudiant n’a tourné : {reason} Relancez la notation (« Regrade ») une fois l’autograder réparé.",
        "bundle.no_sandbox": "bubblewrap, qui isole le code étudiant pendant la notation, ne démarre pas dans ce conteneur ({detail}), et le code étudiant ne tourne jamais sans lui.",
        "check.heading": "Vérification du dossier {target}",
        "check.expected": "attendu : ",
        "check.actual": "obtenu  : ",
        "check.output": "sortie  : ",
        "check.hint": "piste   : ",
        "check.absent": "absent",
        "check.also_failing": "échouent aussi : {ids}",
        "check.score": "Score : {score}/{max}  ({seconds:.1f} s)",
        "check.all_passed": "Tout est juste. Bravo !",
        "check.keep_going": "Corrigez la première erreur de chaque partie, puis relancez `lab check`.",
        "check.keep_going_watch": "Corrigez la première erreur de chaque partie et enregistrez : la vérification se relance seule.",
        "check.error": "La vérification n’a pas pu aller au bout : {error}",
        "check.watching": "J’attends un enregistrement dans {target}… (Ctrl-C pour arrêter)",
        "check.no_student_files": "{target} n’a aucun des fichiers de l’exercice ({files}) : est-ce le bon dossier ? `lab exercises` les écrit dans exercises/.",
        "exercises.written": "Écrit dans {folder}/ : {names}",
        "exercises.all_there": "{folder}/ a déjà tous ses fichiers : rien n’a été réécrit (votre travail est gardé).",
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
        "grade.bonus_not_attempted": "Bonus not attempted: there is no {file} file.",
        "grade.no_sandbox.platform": (
            "lab grade isolates each submission with bubblewrap, which exists on Linux only. "
            "Use the docker grader (docker compose --profile grade run grader), "
            "or --no-sandbox on a throwaway machine."
        ),
        "grade.copy_failed": "The private copy of this submission failed on the grader's side ({reason}).",
        "grade.output_failed": "This submission's results could not be written ({reason}).",
        "grade.no_sdk": (
            "lab grade --bonus runs the mcp Python SDK's client, which this Python cannot import "
            "(module {missing}): its two checks would score 0 for the whole class. Install it in the "
            "kit's environment (pip install 'mcp>=2.0'), then run again."
        ),
        "grade.no_inspector": (
            "lab grade --bonus runs the MCP Inspector found before grading, in npx's cache, never npx "
            "in a submission's folder: it is not there. Install it once (network needed): "
            "npx --yes --package {package} --call true, then run again."
        ),
        "grade.no_sandbox.missing": (
            "lab grade isolates each submission with bubblewrap (bwrap), which is not installed here. "
            "Install it (apt-get install bubblewrap, dnf install bubblewrap), or use the docker grader "
            "(docker compose --profile grade run grader), or --no-sandbox on a throwaway machine."
        ),
        "grade.no_sandbox.broken": (
            "lab grade isolates each submission with bubblewrap, but bwrap does not start here ({detail}). "
            "Are user namespaces allowed (sudo sysctl -w {setting})? "
            "Otherwise use the docker grader, or --no-sandbox on a throwaway machine."
        ),
        "grade.no_sandbox.unreachable": (
            "Graded by root, student code runs as the unprivileged user nobody (uid 65534), which cannot "
            "run this Python ({detail}). Install the kit in a virtual environment every user can read "
            "(not under /root or a 0700 folder), or grade as a regular user."
        ),
        "grade.unsandboxed": (
            "WARNING: graded WITHOUT a sandbox (--no-sandbox): student code ran with the grader's rights "
            "and could have forged grades."
        ),
        "grade.copy_files": "More than {limit} files in the submission: not copied, nothing could be checked.",
        "grade.copy_bytes": "More than {limit} MiB in the submission: not copied, nothing could be checked.",
        "grade.copy_time": "The submission could not be copied within its time limit: nothing could be checked.",
        "grade.copy_depth": "Folders nested more than {limit} deep in the submission: not copied, nothing could be checked.",
        "grade.empty": "Empty submission ({files}: nothing written): nothing could be checked.",
        "grade.resumed": "{count} submission(s) already graded in {path}: kept as they are (--force to grade them again).",
        "grade.start_path": "Start path: student code {isolation}; checks {checks}; model runner {model}.",
        "grade.start.sandboxed": "in bubblewrap",
        "grade.start.unsandboxed": "WITHOUT a sandbox",
        "grade.start.preloaded": "forked by the preloader",
        "grade.start.zygote": "forked by the zygote, joined into its sandbox",
        "grade.start.new": "as a new interpreter",
        "grade.start.new_unavailable": "as a new interpreter (the preloader did not start)",
        "grade.start.new_cannot_join": "as a new interpreter (the zygote cannot join a sandbox here)",
        "grade.kit_error": "Kit error, not a mark: {reason}",
        "grade.classroom_kit_error": "Kit error: no mark this time, the work is not to blame",
        "grade.limit.pids": "this host's limit on processes and threads",
        "grade.too_few_pids": "This host allows only {have} more processes and threads; grading one submission takes up to {need}. Under that limit, a fork refused in a student's process would read as their mistake: nothing is graded. Raise the limit (the control group's pids.max, ulimit -u) or grade elsewhere.",
        "grade.limit.memory": "the memory available",
        "grade.pids_used_up": "Your programs used up every process and thread of this submission ({pids}): this file could not be started. A program starts only what it needs, and waits for it.",
        "grade.limit.groups": "under this host's limit on processes and threads, no control group (cgroup) can be made for each submission, and a submission that starts too many processes would take them from those graded at the same time",
        "grade.one_at_a_time": "One submission at a time: {reason}. To grade several at once, give the grader a delegated cgroup v2 subtree (memory and pids controllers) or run it as root.",
        "grade.limit.cpu": "the CPUs available",
        "grade.resource_failure": (
            "The grader ran out of resources ({error}) after {attempts} attempts: nothing was "
            "graded. Run again with fewer submissions in parallel (--jobs)."
        ),
        "grade.bad_paths": "These paths are not submission folders, nothing was graded:",
        "grade.bad_path_missing": "  {path}: not found (a shell pattern that matched nothing?)",
        "grade.bad_path_not_folder": "  {path}: not a folder",
        "grade.bad_path_class": "  {path}: the class folder (its subfolders are the submissions): give them one by one, {pattern}",
        "grade.jobs_lowered": "--jobs {asked} lowered to {jobs}: {reason}.",
        "grade.probes_in_turn": "This host's limit on processes and threads ({have}) does not hold a submission's files tried all at once: they are tried one after the other, one submission at a time (slower, the same checks, the same grades).",
        "grade.counts": "Kit errors: {kit} · empty submissions: {empty} · timeouts: {timeouts}.",
        "gradescope_bundle.no_folder": "The folder {path} does not exist: create it first, or choose another --out.",
        "grade.out_unwritable": "Cannot write the results in {path} ({reason}): nothing was graded. "
                                "Choose another folder with --out.",
        "grade.graded_folder": "Graded folder: {folder}",
        "grade.case_only": "{found} found, but the file must be called {expected} (case matters): counted as missing.",
        "grade.many_folders": (
            "Several folders hold {file}: {folders}. Nothing was graded: upload a single "
            "folder (or only its files)."
        ),
        "grade.no_submission_file": (
            "No {file} in the upload: nothing was graded. Expected: {expected}. "
            "Folders searched: {folders}"
        ),
        "grade.expected": "Expected: {value}",
        "grade.actual": "Actual: {value}",
        "grade.hint": "Hint: {value}",
        "grade.output": "Output:\n{value}",
        "grade.summary": "Score: {score}/{max}",
        "grade.done": "{count} submission(s) graded in {seconds:.1f} s ({rate:.2f} per second). Summary: {path}",
        "grade.done_reused": "{count} submission(s) graded in {seconds:.1f} s, {reused} of them reused from an earlier run ({rate:.2f} graded per second). Summary: {path}",
        "grade.no_checks": "Warning: the list of checks is unknown (the engine does not give it and the solutions could not be graded).",
        "gradescope_bundle.done": "Autograder zip written: {path}",
        "report.done": "Class report written: {path}",
        "report.not_written": "summary.csv is written, but not the class report ({reason}): free some room, then lab report.",
        "grade.interrupted": "Grading interrupted (signal {signal}): the submissions already graded are kept in {path}; run the same lab grade command again to grade the rest.",
        "summary.not_written": "summary.csv could not be written ({reason}): free some room, then run the same lab grade command again (the submissions already graded are kept).",
        "report.missing": "Folder not found: {path}. Give the --out folder of `lab grade`.",
        "report.older": "{path} was graded by another version of the kit: regrade it with this one (`lab grade ... --out {path}`), then lab report.",
        "report.empty": (
            "No grading results in {path} (no summary.csv, no results file). "
            "Run `lab grade ... --out {path}` first."
        ),
        "bundle.failed": "The autograder could not run lab: see run_autograder's output.",
        "bundle.not_graded": "Nothing was graded, and no student code ran: {reason} Regrade once the autograder is fixed.",
        "bundle.no_sandbox": "lab grade's sandbox (bubblewrap) cannot start in this container ({detail}), and student code never runs without it.",
        "check.heading": "Checking {target}",
        "check.expected": "expected: ",
        "check.actual": "actual:   ",
        "check.output": "output:   ",
        "check.hint": "hint:     ",
        "check.absent": "missing",
        "check.also_failing": "also failing: {ids}",
        "check.score": "Score: {score}/{max}  ({seconds:.1f} s)",
        "check.all_passed": "All correct. Well done!",
        "check.keep_going": "Fix the first error of each part, then run `lab check` again.",
        "check.keep_going_watch": "Fix the first error of each part and save: the checks run again by themselves.",
        "check.error": "The check could not finish: {error}",
        "check.watching": "Waiting for a save in {target}… (Ctrl-C to stop)",
        "check.no_student_files": "{target} has none of the exercise's files ({files}): is it the right folder? `lab exercises` writes them into exercises/.",
        "exercises.written": "Written into {folder}/: {names}",
        "exercises.all_there": "{folder}/ has all its files already: nothing was written over (your work is kept).",
        "exercises.in_sync": "exercises/ is up to date.",
        "exercises.out_of_sync": "exercises/ is out of date (run `lab exercises`):",
    },
}


def text(lang: str, key: str, **fields: object) -> str:
    return MESSAGES[lang][key].format(**fields)


def decimal(value: float, lang: str, form: str = "g") -> str:
    """A number as the language writes it (0,5 in French), in the format spec `form`."""
    written = format(value, form)
    return written.replace(".", ",") if lang == "fr" else written
