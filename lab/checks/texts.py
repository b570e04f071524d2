"""The checks' student-facing reasons, one table: a key and its fields, rendered once, at the edge.

A check (or a probe, or a real MCP client) says why it failed as a key of `TEXTS` and plain
fields (numbers, file names, task ids): that is what a result carries (`CheckResult.reason`,
`CheckResult.fields`, kept in --json and report.json) and what lab/grading/causes.py reads.
`say(lang, key, **fields)` writes the sentence in the run's language; nothing else translates.

A field named in `WORDS` is itself rendered in the language: `task` (a lesson part's id) as
its title, `who` as a key of this table ("who.server" → "Le serveur"), `cpu` and `load_seconds`
(seconds) as the language writes a decimal number, `got` and `want` (JSON, None when absent). A field whose value is itself a reason, {"reason": key,
"fields": {...}} (a real client's, inside a check's), is written as that sentence. Every key
exists in French and English with the same fields (tests/test_texts.py walks the table).
A check's title and hint are in its declaration (lab/checks/engine.py `Check`), written with
`fill`, as these are. To add a reason: a key here in both languages, then
`Failed(expected, actual, reason="the.key", fields={...})` in the check.
"""

from __future__ import annotations

import string
from typing import Any, Callable

TEXTS: dict[str, dict[str, str]] = {
    "fr": {
        # The engine's own (lab/checks/engine.py).
        "part.unwritten": "Cette partie est encore à écrire (« {task} »).",
        "part.not_yet": "pas encore vérifiable : il faut d’abord écrire « {task} »",
        "part.waits_for": "pas encore vérifiable : il faut d’abord que « {title} » réussisse",
        "kit.error": "Erreur du kit, pas de votre code : {what}",
        "kit.probe_late": "Erreur du kit, pas de votre code : la sonde {name!r} n’a pas fini en {limit:g} s",
        # A student file, or its program, that gives nothing to judge.
        "file.missing": "Il n’y a pas de fichier {file}.",
        "file.does_not_load": "{file} ne se charge pas.",
        "part.raises": "{call} lève une exception au lieu d’écrire sa réponse.",
        # A direct call that gave nothing back (lab/checks/parts.py), or an answer that is not the kit's.
        "part.hangs": "{call} ne rend pas la main : rien n’est revenu en {seconds:g} s.",
        "part.spins": "{call} tourne sans fin : il a utilisé tout son temps de calcul ({cpu} s de CPU).",
        "part.stopped": "Le programme s’est arrêté pendant {call} (os._exit, un signal ?) : l’appel n’a rien rendu.",
        "part.bad_answer": "La réponse à {call} n’est pas celle du kit : quelque chose dans votre code a écrit à sa "
                           "place (sur la vraie sortie du programme, ou en changeant les fonctions du kit).",
        "answers.not_utf8": "{file} n’est pas enregistré en UTF-8 (octet {byte}).",
        "answers.no_table": "La table [{table}] manque dans {file}.",
        "answers.not_a_table": "{table} est écrit dans {file} comme une seule valeur, pas comme la table [{table}] : "
                               "une ligne [{table}], puis une cellule par ligne, comme dans le fichier donné.",
        # tomllib speaks English only: what is wrong ({what}, one of the answers.toml_… reasons) and
        # its place are said in the student's language, its own words ({said}) quoted after.
        "answers.file_title": "{file} se lit comme un fichier TOML",
        "answers.not_toml_at": "{file} ne se lit pas, ligne {line} : {what} (tomllib dit, en anglais : « {said} "
                               "(at line {line}, column {column}) »).",
        "answers.toml_value": "la réponse n’est ni un nombre ni un texte entre guillemets",
        "answers.toml_after_value": "après la réponse, rien d’autre sur la ligne qu’un commentaire # (une réponse de "
                                    "plusieurs mots va entre guillemets)",
        "answers.toml_no_equals": "il manque le signe = entre la clé et la réponse",
        "answers.toml_open_quote": "un guillemet n’est pas refermé sur cette ligne",
        "answers.toml_twice": "cette clé est déjà écrite plus haut dans sa table : une seule ligne par cellule",
        "answers.toml_table": "le nom de la table n’est pas refermé par ]",
        "answers.toml_table_letter": "le nom de la table a une lettre qu’un nom sans guillemets n’admet pas (un "
                                     "accent, une espace)",
        "answers.toml_other": "regardez les crochets, les guillemets et le signe = de cette ligne",
        "answers.not_toml": "{file} n’est pas du TOML valide (tomllib dit, en anglais : « {said} »).",
        # A wrong cell (lab/checks/answers_checks.py): `cell` is its name in the file, `why` one of
        # the answers.why_… reasons, `empty_cells` and `wrong_cells` the other cells (lists, maybe empty).
        "answers.cell": "Cellule {cell} : {why}{empty_cells}{wrong_cells}",
        "answers.still_empty": " Cellules encore vides : {cells}.",
        "answers.also_wrong": " Autres cellules fausses : {cells}.",
        "answers.why_empty": "elle est vide.",
        "answers.why_not_the_opening": "ce n’est pas la requête qui fait quitter au serveur l’état nouveau.",
        "answers.why_not_a_state": "ce n’est pas un des états du serveur.",
        "answers.why_version_refused": "le serveur n’accepte pas cette version (écrivez une date AAAA-MM-JJ).",
        "answers.why_say_version": "dites aussi en quelle version.",
        "answers.why_say_code": "c’est bien une erreur : dites aussi son code.",
        "answers.why_almost": "presque : « {word} » s’écrit {right}, comme dans les messages JSON.",
        "answers.why_just_the_word": "presque : écrivez seulement « {right} », le mot de la leçon, sans rien autour.",
        "answers.why_minus": "c’est bien une erreur, mais les codes d’erreur de JSON-RPC sont négatifs : le signe "
                             "moins fait partie du code.",
        "answers.why_not_the_reply": "ce n’est pas ce que répond le serveur.",
        "answers.why_two_answers": "une case, une seule réponse : celle-ci en donne plusieurs ({answers}).",
        "answers.why_misspelt": "elle manque, et la table a une clé « {written} » que la leçon n’a pas : une faute "
                                "de frappe pour {meant} ?",
        "answers.why_renamed": "elle manque, et la table a à sa place une clé « {written} » que la leçon n’a pas : "
                               "gardez les clés du fichier donné, ici {meant}.",
        "answers.misspelt_table": "La table [{table}] manque dans {file}, qui a une table [{written}] que la leçon "
                                  "n’a pas : une faute de frappe ?",
        "answers.file_hint": "Tant que {file} ne se lit pas, aucune de ses réponses ne peut être vérifiée : chaque "
                             "table [nom] sur sa ligne, puis une cellule par ligne, clé = \"réponse\", comme dans le "
                             "fichier donné.",
        # What a cell asks (the check's "expected").
        "answers.asks_handshake": "la méthode qui ouvre la session",
        "answers.asks_state": "un état du serveur",
        "answers.asks_version": "une version que les deux côtés parlent",
        "answers.asks_initialize": "ce que répond le serveur à initialize {version}",
        "answers.asks_reply": "la réponse {id} de `lab run`",
        # A reply compared with the reference's (lab/checks/server_session.py): `got` and `want`
        # are JSON, or None for a value the reply lacks.
        "reply.none": "Aucune réponse à la requête {what}.",
        "reply.differs": "Réponse à la requête {what} : {path} vaut {got} au lieu de {want}.",
        "server.null_in_result": "Réponse à la requête {what} : result.{name} vaut null. Une clé facultative qui n’a rien à dire "
                                 "s’omet ; la spécification MCP n’y prévoit pas null.",
        "server.in_a_text": "La requête tools/list envoyée pendant l’attente n’est pas refusée (-32600), et votre "
                            "serveur teste {code} : des parenthèses autour d’un seul texte ne font pas un tuple, et "
                            "in y cherche un morceau du texte (un tuple d’un élément a sa virgule).",
        "server.state_typo": "La requête tools/list envoyée pendant l’attente n’est pas refusée (-32600), et votre "
                             "serveur écrit « {typo} » une fois, « {word} » ailleurs : une faute de frappe dans un nom "
                             "d’état ? Un état s’écrit pareil là où il est donné et là où il est testé.",
        "reply.missing": "Réponse à la requête {what} : {path} manque, au lieu de valoir {want}.",
        "reply.error_not_result": ("Réponse à la requête {what} : l’erreur {code} ({message}), là où la leçon "
                                   "attend un result : votre serveur refuse ce que la leçon accepte."),
        "reply.misspelt": "Réponse à la requête {what} : {path} manque, mais la réponse a {near} : une faute de frappe "
                          "pour {name} ?",
        # The rules session's requests (lab/checks/server_session.py), by their id: its ids are
        # words for the checks to find them, the student reads what each message is.
        "sent.ping-new": "ping envoyée avant initialize",
        "sent.unknown-new": "resources/list envoyée avant initialize",
        "sent.list-notified-new": "tools/list envoyée après notifications/initialized, avant tout initialize",
        "sent.init-future": "initialize qui demande la version 2099-01-01, plus récente que celles de VERSIONS",
        "sent.init-2025": "initialize qui demande la version 2025-03-26",
        "sent.ping-waiting": "ping envoyée pendant l’attente (après initialize, avant la notification)",
        "sent.init-again-waiting": "initialize envoyée une deuxième fois, pendant l’attente",
        "sent.list-waiting": "tools/list envoyée pendant l’attente (après initialize, avant la notification)",
        "sent.ping-ready": "ping envoyée une fois le serveur prêt",
        "sent.list-ready": "tools/list envoyée une fois le serveur prêt",
        "sent.unknown-ready": "resources/list envoyée une fois le serveur prêt",
        "sent.init-again-ready": "initialize envoyée une deuxième fois, une fois le serveur prêt",
        "sent.after-bad-json": "ping envoyée après la ligne qui n’est pas du JSON",
        "sent.init-again": "initialize envoyée une deuxième fois",
        "value.missing": "absent",
        "who.server": "Le serveur",
        "who.bonus": "Le serveur bonus",
        "who.client": "Le client",
        "run.silent": "{who} n’a rien écrit en {seconds:g} s.",
        "run.spun": "{who} a utilisé tout son temps de calcul ({cpu} s de CPU) sans rien écrire, une boucle sans fin "
                    "sans doute.",
        "run.stopped_silent": "{who} s’est arrêté (code {code}) sans rien écrire.",
        # The lesson's server (lab/checks/server_checks.py).
        "server.not_json": "La ligne {number} de la sortie n’est pas du JSON. Sur stdout, rien que les réponses : les "
                           "messages de suivi vont sur stderr, print(..., file=sys.stderr).",
        "server.escaped_newline": "La ligne {number} de la sortie tient plusieurs réponses, séparées par les deux "
                                  "caractères \\n écrits tels quels : une réponse finit par un vrai retour à la ligne, "
                                  "\"\\n\" ; r\"\\n\" ou \"\\\\n\" en sont deux caractères.",
        "server.malformed": "Ligne mal formée : {problem}.",
        "shape.not_an_object": "ce n’est pas un objet JSON",
        "shape.no_jsonrpc": "\"jsonrpc\": \"2.0\" manque",
        "shape.wrong_jsonrpc": "\"jsonrpc\" vaut \"2.0\", le texte exact de la version de JSON-RPC",
        "shape.no_id": "pas d’id",
        "shape.result_or_error": "il faut soit result, soit error",
        "shape.misspelt_result": "il faut soit result, soit error, et la réponse a une clé presque pareille (une faute "
                                 "de frappe)",
        "shape.result_and_error": "elle a à la fois result et error, quand une réponse a l’un ou l’autre (un dict "
                                  "qui garde les clés d’une réponse à l’autre ?)",
        "shape.error_fields": "error doit avoir code (entier) et message (texte)",
        "server.reads_to_the_end": "lire jusqu’à la fin de l’entrée",
        "server.stopped_early": "Le serveur s’est arrêté (code {code}) après cette ligne, avant la fin de son entrée.",
        "server.not_flushed": "Pas de réponse à cette ligne en {seconds:g} s : les réponses ne sont arrivées qu’à la "
                              "fermeture de l’entrée. Un vrai client attend chaque réponse avant d’envoyer la suite.",
        "server.id_changed": "La réponse à la requête {what} porte l’id {id} : recopiez l’id tel quel.",
        "server.ids_out_of_order": "Les ids des réponses ne sont pas ceux des requêtes, dans leur ordre.",
        "server.too_many_replies": "{count} réponse(s) de trop, par exemple : {example}",
        "server.runs_on": "Le serveur tourne encore alors que son entrée est fermée.",
        "server.spins_at_eof": "Le serveur a utilisé tout son temps de calcul ({cpu} s de CPU) au lieu de s’arrêter : "
                               "une boucle sans fin ?",
        "server.exit_code": "Le serveur s’est arrêté avec le code {code}.",
        "server.lesson_keys": "La spécification MCP nomme ces clés requested et supported ; demandee et acceptees, "
                              "dans la leçon, en sont la traduction : la réponse garde les noms de la spécification.",
        "server.capabilities": "Les capacités annoncées sont {announced} ; la leçon n’annonce que tools.",
        "server.no_capabilities": "Aucune capacité n’est annoncée ({{}}) ; la leçon annonce tools, que ce serveur sait faire.",
        "server.server_info": "serverInfo doit donner name et version, deux textes.",
        "server.call_unflushed": "{call} écrit sa réponse sans demander son envoi (flush) : Python la garde, "
                                 "et un vrai client l’attend sans fin.",
        # The lesson's client (lab/checks/client_checks.py).
        "client.sent_nothing": "Le serveur n’a rien reçu du client.",
        "client.hangs_silent": "Le client n’a rien envoyé au serveur en {seconds:g} s, et ne s’est pas arrêté : il attend quelque chose, ou il boucle.",
        "client.scenario_raises": "scenario() lève une exception au lieu de rendre la liste.",
        "client.scenario_not_a_list": "scenario() doit rendre une liste de messages.",
        "client.message_differs": "Le message {number} n’est pas celui de la leçon ({path}).",
        "client.id_differs": "Le message {number} a l’id {got} au lieu de {want} : recopiez les ids de la leçon tels "
                             "quels (un nombre reste un nombre).",
        "client.notification_id": ("Le message {number}, notifications/initialized, a \"id\": {got} : une "
                                   "notification n’a pas de clé id du tout, pas même null (c’est ce qui la distingue "
                                   "d’une requête)."),
        "client.id_null": "Le message {number} a \"id\": null au lieu de {want} : une requête porte un id ; null n’est "
                          "l’id que de l’erreur -32700, et une notification n’a pas de clé id du tout.",
        "client.message_misspelt": "Le message {number} n’a pas {path}, mais il a {near} : une faute de frappe ?",
        "client.too_many_messages": "Le client envoie plus de sept messages.",
        "client.info_not_text": "params.clientInfo.{name} vaut {got} au lieu d’un texte : comme dans la leçon, name et "
                                "version s’écrivent entre guillemets.",
        "client.initialize_params": "params d’initialize : protocolVersion, capabilities {{}} et clientInfo {{name, "
                                    "version}}.",
        "client.no_jsonrpc": "Le message {number} n’a pas \"jsonrpc\": \"2.0\".",
        "client.no_prefix_sent": "Les lignes sont affichées sans le préfixe « {prefix}» : on ne voit pas ce qui a été "
                                 "envoyé.",
        "client.no_prefix_received": "Les lignes sont affichées sans le préfixe « {prefix}» : on ne voit pas ce qui a "
                                     "été reçu.",
        "client.printed_on_stderr": "Les lignes « {prefix}» sont écrites sur stderr (la sortie des erreurs), pas "
                                    "sur la sortie du programme : affichez-les avec print(...), sans file=sys.stderr.",
        "client.wrong_lines_sent": "Les lignes « {prefix}» ne montrent pas exactement ce qui a été envoyé.",
        "client.wrong_lines_received": "Les lignes « {prefix}» ne montrent pas exactement ce qui a été reçu.",
        "client.input_end": "la fin de l’entrée du serveur",
        "client.input_open": "Le client n’a pas fermé l’entrée du serveur : le serveur attend la suite, le client "
                             "attend le serveur, et tout s’arrête au bout de {seconds:g} s.",
        "client.waits_for_seventh": "Le serveur a écrit ses six réponses, mais le client n’a pas fermé son entrée : au "
                                    "bout de {seconds:g} s, il attendait encore. Après la sixième réponse, plus rien ne "
                                    "vient (la notification n’en reçoit pas) : c’est là que le client ferme l’entrée du "
                                    "serveur.",
        "client.close_after_six": "fermer après la réponse 6",
        "client.closed_after": "fermée après la réponse {replies}",
        "client.closed_early": "Le client a fermé l’entrée du serveur quand {replies} réponse(s) sur six lui "
                               "avaient été envoyées : fermez-la une fois la sixième réponse lue, sinon les "
                               "dernières peuvent se perdre.",
        "client.did_not_end": "Le client ne s’est pas terminé.",
        "client.ask_once": "Le client doit appeler ask une fois.",
        "client.crashed_before_ask": "Le client s’est arrêté sur une erreur (code {code}) avant d’appeler ask : "
                                     "ce qu’il a écrit, ci-dessous, dit pourquoi.",
        "client.capabilities_of_one_reply": "Le client s’est arrêté avant d’appeler ask : announced_capabilities "
                                            "(fourni) prend la liste des réponses et y trouve elle-même l’initialize "
                                            "accepté ; elle a reçu une seule réponse.",
        "client.question_as_sample": "ask a reçu l’échantillon dans le message de l’utilisateur, et la question comme "
                                     "échantillon : comme demander dans client2.js, ask reçoit d’abord les messages "
                                     "(la question avec les capacités), puis l’échantillon, puis 60.",
        "client.replies_not_read": "Le client s’est arrêté avant d’appeler ask : les réponses gardées en partie 2 "
                                   "sont des lignes de texte, pas des réponses lues. Comme client2.js garde "
                                   "JSON.parse(ligne), chaque réponse gardée est l’objet lu sur sa ligne (read_reply, "
                                   "fourni).",
        "client.crashed_before_sending": "Le client s’est arrêté sur une erreur (code {code}) avant d’envoyer un "
                                         "message : ce qu’il a écrit, ci-dessous, dit pourquoi.",
        "client.crashed_before_closing": "Le client s’est arrêté sur une erreur (code {code}) avant de fermer l’entrée "
                                         "du serveur : ce qu’il a écrit, ci-dessous, dit pourquoi.",
        "client.question_lacks_capabilities": "La question ne finit pas par les capacités annoncées (result.capabilities de la réponse 3), en JSON.",
        "client.question_lacks_facts": "Le modèle ne reçoit pas, avant la question, le message système de facts(capacités).",
        "client.answer_not_printed": "Le client n’affiche pas la réponse du modèle.",
        "client.printed_answer_whole": "Le client affiche tout l’Answer rendu par ask, pas son texte : comme client2.js "
                                       "affiche r.texte, seul le texte de la réponse suit « le modèle dit : ».",
        "client.crashed_after_ask": "Le client s’est arrêté sur une erreur (code {code}) après l’appel à ask, avant "
                                    "d’afficher la réponse : ce qu’il a écrit, ci-dessous, dit pourquoi.",
        "client.exit_code": "Le client ne finit pas avec le code 0.",
        # The model helper (lab/checks/model_checks.py).
        "model.data.answer": "Il peut lister des outils.",
        "model.data.sample": "ÉCHANTILLON",
        "model.data.question": "Que peut faire ce serveur ?",
        "client.data.answer": "Réponse 42 du modèle de test",
        "model.not_loaded": "model.py ne s’est pas chargé en {load_seconds} s",
        "model.load_hangs": "model.py ne se charge pas en {seconds:g} s : ce qui s’exécute à son import ne finit pas.",
        "model.stopped_before": "Le processus de test s’est arrêté avant ce cas.",
        "model.never_answers": "Le modèle accepte la connexion mais ne répond jamais : ask attendait encore au bout de "
                               "{seconds:g} s (AI_TIMEOUT = {timeout:g}) : son attente n’est pas bornée par AI_TIMEOUT, qui "
                               "compte en secondes.",
        "model.ask_hangs": "ask ne rend pas la main.",
        "model.ask_raises": "ask a levé une exception au lieu de répondre.",
        "model.narrow_except": ("ask a levé une exception au lieu de répondre : « {clause} » ne prend qu’une sorte "
                                "d’erreur, et celle-ci lui échappe. Toute erreur, quelle qu’elle soit, mène à "
                                "l’échantillon enregistré."),
        "model.not_its_text": "ask ne renvoie pas le texte du modèle.",
        "model.fell_back_on_answer": "Le modèle a répondu, mais ask a rendu l’échantillon enregistré : lire sa réponse "
                                     "a échoué (ask a affiché sa raison, ci-dessous). Le texte est le contenu du "
                                     "message du premier choix de la réponse.",
        "model.text_marked_recorded": "ask renvoie bien le texte du modèle, mais marqué comme l’échantillon enregistré : recorded dit d’où vient le texte.",
        "model.sample_not_marked": "ask renvoie bien l’échantillon, mais sans le marquer comme enregistré : recorded dit d’où vient le texte.",
        "model.bare_text": "ask renvoie l’échantillon seul, un texte, au lieu d’un Answer : son recorded dit d’où vient le texte.",
        "model.bare_model_text": "ask renvoie le texte du modèle seul, une chaîne, sans dire d’où il vient : comme "
                                 "model.js rend {{ texte, enregistre: false }}, ask rend un Answer marqué comme venant "
                                 "du modèle (model_answer, fourni, lit la réponse ainsi).",
        "model.no_request": "Aucune requête n’est arrivée au modèle de l’adresse AI_URL : ce qu’ask a affiché, "
                            "ci-dessous, dit pourquoi.",
        "model.request_differs": "La requête n’est pas celle de la leçon ; ce qui diffère : {fields}.",
        "model.sdk_arguments": "Aucune requête n’est partie : le SDK openai a refusé l’appel, car "
                               "client.chat.completions.create demande model= et messages= (les messages reçus par ask) ; "
                               "il en manque un.",
        "model.not_the_sample": "ask ne renvoie pas l’échantillon enregistré.",
        "model.fell_back_untried": "Aucune requête n’est arrivée au modèle : ask doit essayer le modèle avant de rendre "
                                   "l’échantillon enregistré.",
        "model.reason_placeholder": "<raison>",
        "model.fallback_line": "ask doit afficher une ligne « Échantillon enregistré : … (<raison>). »",
        "model.fallback_on_stderr": "ask affiche la ligne « Échantillon enregistré : … » sur la sortie d’erreur "
                                    "(stderr) : comme le console.log de model.js, elle va sur la sortie standard, "
                                    "avec les autres lignes du client.",
        "model.reason_lacks": "La raison ne dit pas {words}.",
        "model.waited_too_long": "ask a attendu trop longtemps.",
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
        # The bonus checks that read a real client's run (lab/checks/bonus.py).
        "bonus.discover_silent": "Pas de réponse d’erreur à la requête {what} : un client qui sonde attendrait pour rien.",
        "bonus.client_unavailable": "ignoré : ce client ne peut pas tourner ici ({why})",
        "bonus.client_failed": "Le client n’a pas pu se connecter et lister les outils.",
        "bonus.client_sees_wrong": "Le client s’est connecté, mais ne voit pas ce qu’il faut.",
        # Python's own errors (lab/checks/tracebacks.py): a frame, what an error means (python.<its type>),
        # and the hint for a file that does not load.
        "trace.frame": "{file}, ligne {line}",
        "trace.frame_in": "{file}, ligne {line}, dans {where}",
        "python.NameError": "Python ne connaît pas le nom « {name} » : une faute de frappe, ou un nom défini plus bas "
                            "ou dans une autre fonction ?",
        "python.UnboundLocalError": "« {name} » est ici une variable de la fonction (une affectation ou un import de "
                                    "{name} dans la fonction la rend locale), lue avant d’avoir reçu sa valeur. Pour "
                                    "changer une variable du module (comme state), déclarez-la global au début de la "
                                    "fonction ; pour un import, faites-le avant de lire le nom.",
        "python.KeyError.table": "Cette table de votre fichier n’a pas de clé « {name} » : regardez les clés qu’elle a, "
                                 "une faute de frappe peut-être.",
        "python.KeyError": "La clé « {name} » n’est pas dans ce dictionnaire : vérifiez d’abord qu’elle y est ; "
                           "les messages n’ont pas tous les mêmes clés.",
        "python.KeyError.id": "La clé « id » n’est pas dans ce dictionnaire : vérifiez d’abord qu’elle y est (une "
                              "notification n’a pas d’id, et ne reçoit jamais de réponse).",
        "python.KeyError.near": "La clé « {name} » n’est pas dans ce dictionnaire : une faute de frappe pour « {near} », "
                                "une clé des messages de la leçon ?",
        "python.JsName": "« {name} » s’écrit ainsi en JavaScript (et en JSON) ; en Python, c’est {python}, avec sa "
                         "majuscule. json.loads et json.dumps traduisent l’un dans l’autre.",
        "python.JsOperator": "&&, || et === s’écrivent ainsi en JavaScript ; en Python, ce sont and, or et ==.",
        "python.Concatenate": "Le signe + ne colle un texte (str) qu’à un autre texte : un dict ou une liste devient du "
                              "texte JSON avec json.dumps(valeur), un nombre du texte avec str(valeur).",
        "python.ConcatenateAnswer": "ask renvoie un Answer, pas un texte : la phrase du modèle est dans son champ "
                                    "text (answer.text).",
        "python.AttributeError": "Cette valeur n’a pas d’attribut « {name} » : vérifiez son type et l’orthographe.",
        "python.FunctionNotCalled": "Cette valeur est une fonction, pas son résultat : une fonction nommée sans ses "
                                    "parenthèses (scenario au lieu de scenario()) n’est pas appelée.",
        "python.MethodAttribute": "Cette valeur est une fonction, pas son résultat : une fonction ou une méthode "
                                  "nommée sans ses parenthèses (line.strip au lieu de line.strip()) n’est pas appelée, "
                                  "et n’a pas d’attribut « {name} ».",
        "python.DictAttribute": "Un dictionnaire (dict) n’a pas d’attribut « {name} » : un message JSON lu par Python "
                                "est un dict, et ses clés se lisent entre crochets, message[\"{name}\"], pas avec un "
                                "point comme en JavaScript.",
        "python.NoneAttribute": "Cette valeur est None (rien) : elle n’a pas d’attribut « {name} ». None vient souvent d’une "
                                "clé absente lue avec .get(), ou d’une fonction sans return.",
        "python.StrAttribute": "Cette valeur est un texte (str), sans attribut « {name} » : une ligne reçue est du "
                               "texte, et ne devient un dict qu’une fois lue comme JSON.",
        "python.NoneSubscript": "Cette valeur est None (rien) : elle n’a pas de clés à lire. None vient souvent "
                                "d’une clé absente lue avec .get(), ou d’une fonction sans return.",
        "python.StrSubscript": "Ce texte (str) est lu comme un dict : une ligne reçue est du texte, et ne devient un "
                               "dict qu’une fois lue comme JSON.",
        "python.TypeError": "Une opération a reçu une valeur du mauvais type, ou une fonction le mauvais nombre "
                            "d’arguments.",
        "python.IndexError": "Un indice dépasse la longueur de la liste (le premier est 0).",
        "python.FormatIndex": "Ce texte a plus de {{}} que .format ne reçoit de valeurs : chaque {{}} prend la valeur "
                              "suivante. Donnez-en autant, ou nommez-les, comme {{reason}} avec .format(reason=…).",
        "python.ValueError": "Une fonction a reçu une valeur qu’elle ne sait pas traiter.",
        "python.JSONDecodeError": "Ce texte n’est pas du JSON : json.loads l’a refusé.",
        "python.ZeroDivisionError": "Une division par zéro.",
        "python.RecursionError": "Une fonction s’appelle elle-même sans fin : Python s’est arrêté à sa limite de "
                                 "profondeur.",
        "python.AssertionError": "Un assert de votre code a échoué.",
        "python.FileNotFoundError": "Un fichier ou un programme introuvable : vérifiez son nom et le dossier où il "
                                    "est cherché.",
        "python.BrokenPipeError": "L’autre programme s’est arrêté (ou a fermé son entrée) pendant que celui-ci lui "
                                  "écrivait.",
        "python.UnicodeDecodeError": "Des octets qui ne sont pas du texte UTF-8.",
        "python.UnicodeEncodeError": "Un caractère que cette sortie ne sait pas écrire.",
        "python.SyntaxError": "Python ne peut pas lire ce fichier : cette ligne est mal écrite.",
        "python.NotUtf8": "Python ne peut pas lire ce fichier : il n’est pas enregistré en UTF-8.",
        "python.IndentationError": "Python ne peut pas lire ce fichier : l’indentation de cette ligne ne va pas.",
        "python.TabError": "Python ne peut pas lire ce fichier : il mélange tabulations et espaces.",
        "python.ModuleNotFoundError": "Un module introuvable : vérifiez son nom, et que son fichier est à côté.",
        "python.ImportError": "Un nom introuvable dans le module importé : vérifiez son orthographe.",
        "python.other": "Votre code a levé l’exception {type}.",
        "load.syntax": "Python ne peut pas lire {file} : la ligne {line} (ou celle juste avant) est mal écrite — "
                       "parenthèse, deux-points, guillemet ou indentation. Rien d’autre ne peut être vérifié avant.",
        "load.encoding": "Python ne peut pas lire {file} : sa ligne {line} a un caractère qui n’est pas en UTF-8 (un "
                         "fichier enregistré en Latin-1 ou Windows-1252 ?). Enregistrez-le en UTF-8 ; rien d’autre ne "
                         "peut être vérifié avant.",
        "load.import": "{file}, ligne {line}, importe un module introuvable : vérifiez son nom, et que le fichier est "
                       "bien à côté ({beside}).",
        # Issue 34: every mistake named first (lab/checks/server_checks.py, client_checks.py, model_checks.py).
        "server.replies_glued": "La ligne {number} de la sortie colle plusieurs réponses l’une à l’autre : chaque "
                                "réponse finit par un retour à la ligne, une réponse par ligne.",
        "server.writes_on_at_eof": "Une fois son entrée fermée, le serveur ne s’arrête pas : il a écrit {count} "
                                   "ligne(s) de plus et a été arrêté. À la fin de l’entrée, la lecture rend une "
                                   "chaîne vide (une ligne vide, elle, rend \"\\n\") : la boucle s’arrête là.",
        "server.notification_misnamed": ("La requête {what} reçoit encore -32600 : le serveur n’est jamais devenu "
                                         "prêt. Votre server.py attend la notification \"{near}\", mais le client "
                                         "envoie \"notifications/initialized\" : le nom doit être exactement celui-là."),
        "server.never_ready": "La requête {what} reçoit encore -32600 : le serveur n’est jamais devenu prêt, ou le test "
                              "qui répond -32600 refuse aussi l’état prêt. Vérifiez les deux : notifications/initialized "
                              "fait passer l’état de attente à pret, et seuls nouveau et attente reçoivent -32600.",
        "model.retried": "ask a envoyé {count} requêtes au modèle muet : une requête sans réponse à temps n’est pas "
                         "réessayée (le SDK openai réessaie de lui-même, sauf si on le lui interdit).",
        "server.replies_on_stderr": "Le serveur a écrit ses réponses sur stderr, et rien sur stdout : le client ne "
                                    "lit que stdout ; stderr est pour les messages de suivi.",
        "server.eof_error": "Le serveur s’est arrêté avec le code {code} à la fin de son entrée : input() y lève "
                            "EOFError. La fin de l’entrée termine la boucle, sans erreur.",
        "server.printed_python": "La ligne {number} de la sortie est un dict de Python écrit tel quel (apostrophes, "
                                 "None, True), pas du JSON : le client ne lit que du JSON.",
        "server.reply_split": "La ligne {number} de la sortie ouvre une réponse qui continue sur les lignes suivantes : "
                              "le client lit une réponse par ligne. Une réponse JSON tient sur une seule ligne (sans "
                              "indentation).",
        "client.message_split": "Le serveur a reçu le premier message sur {count} lignes : il lit un message par "
                                "ligne, et aucune de ces lignes n’en est un. Un message JSON tient sur une seule "
                                "ligne (sans indentation).",
        "client.max_tokens": "ask reçoit max_tokens {got} au lieu de {want} : la leçon demande au modèle une phrase "
                             "courte, et le lui dit par le troisième argument d’ask.",
        "client.prefix_without_space": "Les lignes commencent par « {prefix}» sans l’espace qui suit la flèche.",
        "client.printed_python": "Les lignes « {prefix}» montrent le dict de Python (apostrophes, None, True) au "
                                 "lieu du texte JSON échangé avec le serveur.",
        "server.two_replies.hint": "Une fois sa réponse écrite, une requête est finie : rien d’autre ne s’écrit "
                                   "pour elle, après une erreur non plus.",
        "server.two_replies": "La requête {what} a reçu {count} réponses : une requête en reçoit une, et une seule.",
        "server.handled_again": "La requête {what} a reçu {count} réponses, la deuxième juste après l’erreur -32700 : "
                                "après une ligne qui n’est pas du JSON, la boucle a traité encore la requête d’avant, "
                                "au lieu de passer à la ligne suivante.",
        "server.error_under_result": "Réponse à la requête {what} : l’erreur (code, message) est écrite sous result au "
                                     "lieu de error. Une erreur part sous \"error\" (fail, partie 1).",
        "server.capabilities_as_text": "result.capabilities est un texte qui contient du JSON, pas un objet : le dict "
                                       "des capacités va tel quel dans la réponse, qui sera écrite en JSON une seule fois.",
        "server.refused_but_moved": "La requête {what} reçoit -32600 (déjà initialisé), alors qu’aucun initialize n’a "
                                    "encore été accepté : un initialize refusé a quand même changé l’état du serveur. "
                                    "L’état ne passe à attente qu’une fois la version acceptée.",
        "server.version_not_read": "error.data.requested vaut null, alors que la requête demandait 1999-01-01 : le "
                                   "serveur n’a pas lu la version là où elle est, dans params.protocolVersion.",
        "server.version_misspelt": "Le serveur refuse {asked}, et sa liste de versions donne « {listed} » : une faute "
                                   "de frappe dans VERSIONS ?",
        "server.answers_notifications": "{count} réponse(s) qui ne répondent à aucune requête : ce sont des réponses "
                                        "à des notifications, qui n’en reçoivent pas. Par exemple : {example}",
        "server.error_id_null": "La requête {what} n’a pas de réponse à son id, et une erreur {code} porte id null : "
                                "seule l’erreur -32700 (une ligne qui n’est pas du JSON) a id null ; toute autre "
                                "réponse reprend l’id de sa requête.",
        "server.parse_error_no_id": "L’erreur -32700 n’a pas de clé id : elle porte \"id\": null, car une ligne qui "
                                    "n’est pas du JSON n’a pas d’id que le serveur puisse lire.",
        "server.parse_error_id": "L’erreur -32700 porte l’id {id} au lieu de null : une ligne qui n’est pas du JSON "
                                 "n’a pas d’id que le serveur puisse lire, pas même celui de la requête d’avant.",
        "server.stopped_on_not_json": "Votre serveur s’est arrêté (code {code}) sur une ligne qui n’est pas du JSON, "
                                      "avant la fin de son entrée.",
        "server.stopped_on_blank_line": "Votre serveur s’est arrêté sur une ligne vide (code {code}), avant la fin de "
                                        "son entrée.",
        "server.parse_error_for_json": "Votre serveur répond -32700 (erreur d’analyse) à une ligne qui est du JSON, "
                                       "comme {line} : -32700 ne va qu’à une ligne qui n’est pas du JSON.",
        "server.not_a_request_code": "Votre serveur répond l’erreur {code} à une ligne JSON qui n’est pas une requête, "
                                     "comme {line} : celle qui lui va est -32600 (requête invalide), ou aucune réponse, "
                                     "comme dans la leçon.",
        "server.state_compared": "La requête {what} reçoit encore -32600 : l’état ne change jamais. Ligne {line} de "
                                 "votre server.py, `{code}` compare l’état à un nom et ne change rien : pour changer "
                                 "l’état, écrivez un seul = : `{fixed}` (== sert à tester).",
        "server.text_compared_by_is": "La requête {what} reçoit encore -32600 : le serveur n’est jamais devenu prêt. "
                                      "Ligne {line} de votre server.py, `{code}` compare avec is, qui teste si c’est "
                                      "le même objet, pas le même texte : un texte lu dans un message ne l’est jamais. "
                                      "Écrivez `{fixed}`.",
        "server.unknown_method_unnamed": "Le message de l’erreur -32601 ne dit pas quelle méthode est inconnue : comme "
                                         "dans la leçon (« Méthode inconnue : » + la méthode), il nomme « {method} ».",
        "server.stayed_new": "La requête {what} reçoit encore -32600, et un second initialize est encore accepté : "
                             "après un initialize réussi, l’état du serveur est resté « nouveau ». initialize doit "
                             "changer l’état du serveur (celui du module, pas une variable de la fonction).",
        "server.unknown_tools_list": "La requête {what} reçoit -32601 (méthode inconnue) : votre serveur ne reconnaît "
                                     "pas le nom tools/list. Comparez son orthographe à celle de la leçon.",
        "server.stopped_on_not_a_request": "Votre serveur s’est arrêté sur une ligne JSON qui n’est pas une requête : "
                                           "{line} (code {code}).",
        "server.stopped_on_initialize_without_params": "Votre serveur s’est arrêté sur un initialize sans params : "
                                                       "{line} (code {code}).",
        "server.invalid_request_id": "Votre serveur répond à {line} par {reply} : cette ligne a l’id {id}, et sa réponse "
                                     "le reprend, même quand c’est l’erreur -32600 (requête invalide) ; seule l’erreur "
                                     "-32700 (une ligne qui n’est pas du JSON) a id null.",
        "server.invalid_request_unanswered": "Votre serveur ne répond rien à {line} : cette ligne a un id, c’est donc "
                                             "une requête, même sans method, et elle reçoit une réponse avec cet id "
                                             "(l’erreur -32600, requête invalide).",
        "server.answers_at_end": "Pas de réponse à cette ligne en {seconds:g} s : votre serveur ne répond qu’une fois "
                                 "son entrée fermée, comme s’il lisait toute son entrée avant de répondre. Un vrai "
                                 "client attend chaque réponse avant d’envoyer la suite.",
        "server.answers_at_end.hint": "Répondez à chaque ligne dès qu’elle est lue, avant de lire la suivante : un "
                                      "programme qui lit d’abord toute son entrée (read(), readlines()) attend "
                                      "qu’elle se ferme.",
        "client.nothing_reached": "Le serveur n’a rien reçu du client en {seconds:g} s, pas un octet, et le client ne "
                                  "s’est pas arrêté : ce qu’il écrit reste de son côté tant qu’il n’est pas vidé "
                                  "(flush), à moins qu’il n’attende le serveur avant d’envoyer.",
        "client.printed_not_sent": "Le client a affiché ses messages (« -> »), mais le serveur n’en a reçu aucun : ils "
                                   "sont restés du côté du client.",
        "client.line_never_ended": "Le serveur a reçu du client une ligne qui ne finit jamais ({size} caractères sans "
                                   "retour à la ligne) : il lit ligne par ligne, et attend encore la fin de celle-ci.",
        "client.transport.hint": "Chaque message part sur une ligne à lui : son JSON, un retour à la ligne (\\n), puis "
                                 "flush, pour qu’il parte aussitôt ; le serveur lit ligne par ligne.",
        "client.ask_not_messages": "ask reçoit {given} là où il attend une liste de messages, chacun un objet avec "
                                   "role et content.",
        "client.message_not_a_message": "Le message {number} qu’ask reçoit, {given}, n’a pas role et content : chaque "
                                        "message est un objet avec ces deux clés.",
        "client.facts_after_question": "Le message système de facts(capacités) part après la question : il vient "
                                       "d’abord, pour que le modèle lise les faits avant la question.",
        "client.question_role": "La question part avec le rôle {role} : c’est l’utilisateur qui la pose (\"user\"), "
                                "le message système ne porte que les faits.",
        "model.reason_not_given": "La raison « {reason} » n’est pas une de celles que donne why_no_model (fourni) : "
                                  "pour une connexion refusée, il dit « {expected} ».",
        "model.reason_not_given.hint": "Donnez l’erreur à why_no_model (fourni) : il dit pourquoi en quelques mots, "
                                       "dans la langue choisie ; le texte de l’erreur elle-même est celui de la "
                                       "bibliothèque.",
    },
    "en": {
        "part.unwritten": "This part is still to write (“{task}”).",
        "part.not_yet": "not checkable yet: “{task}” must be written first",
        "part.waits_for": "not checkable yet: “{title}” must pass first",
        "kit.error": "Kit error, not your code's: {what}",
        "kit.probe_late": "Kit error, not your code's: the probe {name!r} did not finish within {limit:g} s",
        "file.missing": "There is no {file} file.",
        "file.does_not_load": "{file} does not load.",
        "part.raises": "{call} raises an exception instead of writing its reply.",
        "part.hangs": "{call} does not return: nothing came back within {seconds:g} s.",
        "part.spins": "{call} loops forever: it used up its CPU time ({cpu} s).",
        "part.stopped": "The program stopped during {call} (os._exit, a signal?): the call gave nothing back.",
        "part.bad_answer": "The answer to {call} is not the kit's: something in your code wrote in its place (on "
                           "the program's real output, or by changing the kit's functions).",
        "answers.not_utf8": "{file} is not saved as UTF-8 (byte {byte}).",
        "answers.no_table": "The [{table}] table is missing from {file}.",
        "answers.not_a_table": "{table} is written in {file} as one value, not as the [{table}] table: a line "
                               "[{table}], then one cell per line, as in the given file.",
        "answers.file_title": "{file} reads as a TOML file",
        "answers.not_toml_at": "{file} does not read, line {line}: {what} (tomllib says: “{said} (at line {line}, "
                               "column {column})”).",
        "answers.toml_value": "the answer is neither a number nor a text in quotes",
        "answers.toml_after_value": "after the answer, nothing else on the line but a # comment (an answer of several "
                                    "words goes in quotes)",
        "answers.toml_no_equals": "the = sign between the key and the answer is missing",
        "answers.toml_open_quote": "a quote is not closed on this line",
        "answers.toml_twice": "this key is written already further up in its table: one line per cell",
        "answers.toml_table": "the table's name is not closed with ]",
        "answers.toml_table_letter": "the table's name has a letter a name without quotes does not take (an "
                                     "accent, a space)",
        "answers.toml_other": "look at the brackets, the quotes and the = sign of this line",
        "answers.not_toml": "{file} is not valid TOML: {said}",
        "answers.cell": "Cell {cell}: {why}{empty_cells}{wrong_cells}",
        "answers.still_empty": " Cells still empty: {cells}.",
        "answers.also_wrong": " Other wrong cells: {cells}.",
        "answers.why_empty": "it is empty.",
        "answers.why_not_the_opening": "that is not the request that moves the server out of the new state.",
        "answers.why_not_a_state": "that is not one of the server's states.",
        "answers.why_version_refused": "the server does not accept this version (write a date YYYY-MM-DD).",
        "answers.why_say_version": "also say in which version.",
        "answers.why_say_code": "it is an error indeed: also say its code.",
        "answers.why_almost": "almost: “{word}” is spelt {right}, as in the JSON messages.",
        "answers.why_just_the_word": "almost: write only “{right}”, the lesson's word, with nothing around it.",
        "answers.why_minus": "it is an error indeed, but JSON-RPC's error codes are negative: the minus sign is "
                             "part of the code.",
        "answers.why_not_the_reply": "that is not what the server answers.",
        "answers.why_two_answers": "one cell, one answer: this one gives several ({answers}).",
        "answers.why_misspelt": "it is missing, and the table has a key “{written}” the lesson does not have: a typo "
                                "for {meant}?",
        "answers.why_renamed": "it is missing, and the table has in its place a key “{written}” the lesson does not "
                               "have: keep the keys of the given file, here {meant}.",
        "answers.misspelt_table": "The [{table}] table is missing from {file}, which has a [{written}] table the "
                                  "lesson does not have: a typo?",
        "answers.file_hint": "As long as {file} does not read, none of its answers can be checked: each [name] "
                             "table on its own line, then one cell per line, key = \"answer\", as in the file given.",
        "answers.asks_handshake": "the method that opens the session",
        "answers.asks_state": "one of the server's states",
        "answers.asks_version": "a version both sides speak",
        "answers.asks_initialize": "what the server answers to initialize {version}",
        "answers.asks_reply": "reply {id} of `lab run`",
        "reply.none": "No reply to the request {what}.",
        "reply.differs": "Reply to the request {what}: {path} is {got} instead of {want}.",
        "server.null_in_result": "Reply to the request {what}: result.{name} is null. An optional key with nothing to say is left "
                                 "out; the MCP specification does not allow null there.",
        "server.in_a_text": "The request tools/list sent while waiting is not refused (-32600), and your server "
                            "tests {code}: parentheses around a single text make no tuple, and in looks there for a "
                            "piece of the text (a tuple of one item has its comma).",
        "server.state_typo": "The request tools/list sent while waiting is not refused (-32600), and your server "
                             "writes “{typo}” once, “{word}” elsewhere: a typo in a state's name? A state is spelt "
                             "the same where it is set and where it is tested.",
        "reply.missing": "Reply to the request {what}: {path} is missing instead of {want}.",
        "reply.error_not_result": ("Reply to the request {what}: the error {code} ({message}), where the lesson "
                                   "expects a result: your server refuses what the lesson accepts."),
        "reply.misspelt": "Reply to the request {what}: {path} is missing, but the reply has {near}: a typo for "
                          "{name}?",
        "sent.ping-new": "ping sent before initialize",
        "sent.unknown-new": "resources/list sent before initialize",
        "sent.list-notified-new": "tools/list sent after notifications/initialized, before any initialize",
        "sent.init-future": "initialize asking for version 2099-01-01, newer than those in VERSIONS",
        "sent.init-2025": "initialize asking for version 2025-03-26",
        "sent.ping-waiting": "ping sent while waiting (after initialize, before the notification)",
        "sent.init-again-waiting": "initialize sent a second time, while waiting",
        "sent.list-waiting": "tools/list sent while waiting (after initialize, before the notification)",
        "sent.ping-ready": "ping sent once the server is ready",
        "sent.list-ready": "tools/list sent once the server is ready",
        "sent.unknown-ready": "resources/list sent once the server is ready",
        "sent.init-again-ready": "initialize sent a second time, once the server is ready",
        "sent.after-bad-json": "ping sent after the line that is not JSON",
        "sent.init-again": "initialize sent a second time",
        "value.missing": "missing",
        "who.server": "The server",
        "who.bonus": "The bonus server",
        "who.client": "The client",
        "run.silent": "{who} wrote nothing in {seconds:g} s.",
        "run.spun": "{who} used up its CPU time ({cpu} s) without writing, an endless loop most likely.",
        "run.stopped_silent": "{who} stopped (code {code}) without writing.",
        "server.not_json": "Line {number} of the output is not JSON. On stdout, nothing but the replies: log messages "
                           "go to stderr, print(..., file=sys.stderr).",
        "server.escaped_newline": "Line {number} of the output holds several replies, separated by the two "
                                  "characters \\n written as they are: a reply ends with a real newline, \"\\n\"; "
                                  "r\"\\n\" or \"\\\\n\" are two characters.",
        "server.malformed": "Malformed line: {problem}.",
        "shape.not_an_object": "it is not a JSON object",
        "shape.no_jsonrpc": "\"jsonrpc\": \"2.0\" is missing",
        "shape.wrong_jsonrpc": "\"jsonrpc\" is \"2.0\", the exact text of JSON-RPC's version",
        "shape.no_id": "no id",
        "shape.result_or_error": "it needs either result or error",
        "shape.misspelt_result": "it needs either result or error, and the reply has a key nearly the same (a typo)",
        "shape.result_and_error": "it has both result and error, when a reply has one or the other (a dict that "
                                  "keeps its keys from one reply to the next?)",
        "shape.error_fields": "error needs code (an integer) and message (a string)",
        "server.reads_to_the_end": "reading until the input ends",
        "server.stopped_early": "The server stopped (code {code}) after this line, before its input ended.",
        "server.not_flushed": "No reply to this line within {seconds:g} s: the replies came only when the input closed. "
                              "A real client waits for each reply before it sends the next line.",
        "server.id_changed": "The reply to the request {what} carries the id {id}: copy the id as it is.",
        "server.ids_out_of_order": "The replies' ids are not the requests' ids, in their order.",
        "server.too_many_replies": "{count} reply(ies) too many, for example: {example}",
        "server.runs_on": "The server still runs although its input is closed.",
        "server.spins_at_eof": "The server used up its CPU time ({cpu} s) instead of stopping: an endless loop?",
        "server.exit_code": "The server stopped with code {code}.",
        "server.lesson_keys": "The MCP specification names these keys requested and supported; the lesson's "
                              "demandee and acceptees are their French translation: the reply keeps the "
                              "specification's names.",
        "server.capabilities": "The capabilities announced are {announced}; the lesson announces only tools.",
        "server.no_capabilities": "No capability is announced ({{}}); the lesson announces tools, which this server implements.",
        "server.server_info": "serverInfo must give name and version, two strings.",
        "server.call_unflushed": "{call} writes its reply without asking for it to be sent (flush): Python keeps it, and "
                                 "a real client waits for it forever.",
        "client.sent_nothing": "The server received nothing from the client.",
        "client.hangs_silent": "The client sent nothing to the server in {seconds:g} s, and did not stop: it waits for something, or loops.",
        "client.scenario_raises": "scenario() raises an exception instead of returning the list.",
        "client.scenario_not_a_list": "scenario() must return a list of messages.",
        "client.message_differs": "Message {number} is not the lesson's ({path}).",
        "client.id_differs": "Message {number} has the id {got} instead of {want}: copy the lesson's ids as they are "
                             "(a number stays a number).",
        "client.notification_id": ("Message {number}, notifications/initialized, has \"id\": {got}: a notification "
                                   "has no id key at all, not even null (that is what sets it apart from a request)."),
        "client.id_null": "Message {number} has \"id\": null instead of {want}: a request carries an id; null is the id "
                          "of the -32700 error only, and a notification has no id key at all.",
        "client.message_misspelt": "Message {number} has no {path}, but it has {near}: a typo?",
        "client.too_many_messages": "The client sends more than seven messages.",
        "client.info_not_text": "params.clientInfo.{name} is {got} instead of a text: as in the lesson, name and "
                                "version are written in quotes.",
        "client.initialize_params": "initialize's params: protocolVersion, capabilities {{}} and clientInfo {{name, "
                                    "version}}.",
        "client.no_jsonrpc": "Message {number} has no \"jsonrpc\": \"2.0\".",
        "client.no_prefix_sent": "The lines are printed without the \"{prefix}\" prefix: one cannot tell what was sent.",
        "client.no_prefix_received": "The lines are printed without the \"{prefix}\" prefix: one cannot tell what was "
                                     "received.",
        "client.printed_on_stderr": "The \"{prefix}\" lines are written on stderr (the error output), not on the "
                                    "program's output: print them with print(...), without file=sys.stderr.",
        "client.wrong_lines_sent": "The \"{prefix}\" lines do not show exactly what was sent.",
        "client.wrong_lines_received": "The \"{prefix}\" lines do not show exactly what was received.",
        "client.input_end": "the end of the server's input",
        "client.input_open": "The client did not close the server's input: the server waits for more, the client "
                             "waits for the server, and everything stops after {seconds:g} s.",
        "client.waits_for_seventh": "The server wrote its six replies, but the client did not close its input: after "
                                    "{seconds:g} s, it was still waiting. After the sixth reply nothing more comes (the "
                                    "notification gets none): that is when the client closes the server's input.",
        "client.close_after_six": "close after reply 6",
        "client.closed_after": "closed after reply {replies}",
        "client.closed_early": "The client closed the server's input when {replies} reply(ies) out of six had been "
                               "sent to it: close it once the sixth reply is read, or the last ones may be lost.",
        "client.did_not_end": "The client did not end.",
        "client.ask_once": "The client must call ask once.",
        "client.crashed_before_ask": "The client stopped on an error (code {code}) before calling ask: what it "
                                     "wrote, below, says why.",
        "client.capabilities_of_one_reply": "The client stopped before calling ask: announced_capabilities (given) "
                                            "takes the list of replies and finds the accepted initialize in it itself; "
                                            "it was given a single reply.",
        "client.question_as_sample": "ask got the sample in the user's message, and the question as the sample: as "
                                     "demander in client2.js, ask takes the messages first (the question with the "
                                     "capabilities), then the sample, then 60.",
        "client.replies_not_read": "The client stopped before calling ask: the replies part 2 kept are lines of "
                                   "text, not read replies. As client2.js keeps JSON.parse(ligne), each kept reply is "
                                   "the object read from its line (read_reply, given).",
        "client.crashed_before_sending": "The client stopped on an error (code {code}) before sending a message: "
                                         "what it wrote, below, says why.",
        "client.crashed_before_closing": "The client stopped on an error (code {code}) before closing the server's "
                                         "input: what it wrote, below, says why.",
        "client.question_lacks_capabilities": "The question does not end with the announced capabilities (reply 3's result.capabilities), as JSON.",
        "client.question_lacks_facts": "The model does not get the system message of facts(capabilities) before the question.",
        "client.answer_not_printed": "The client does not print the model's answer.",
        "client.printed_answer_whole": "The client prints the whole Answer ask returned, not its text: as client2.js "
                                       "prints r.texte, only the answer's text follows “the model says:”.",
        "client.crashed_after_ask": "The client stopped on an error (code {code}) after calling ask, before printing "
                                    "the answer: what it wrote, below, says why.",
        "client.exit_code": "The client does not end with code 0.",
        "model.data.answer": "It can list tools.",
        "model.data.sample": "SAMPLE",
        "model.data.question": "What can this server do?",
        "client.data.answer": "Answer 42 of the test model",
        "model.not_loaded": "model.py did not load within {load_seconds} s",
        "model.load_hangs": "model.py does not load within {seconds:g} s: what runs at its import never ends.",
        "model.stopped_before": "The test process stopped before this case.",
        "model.never_answers": "The model accepts the connection but never answers: ask was still waiting after "
                               "{seconds:g} s (AI_TIMEOUT = {timeout:g}): its wait is not bounded by AI_TIMEOUT, which counts "
                               "seconds.",
        "model.ask_hangs": "ask does not return.",
        "model.ask_raises": "ask raised an exception instead of answering.",
        "model.narrow_except": ("ask raised an exception instead of answering: “{clause}” takes one kind of error "
                                "only, and this one escapes it. Any error at all leads to the recorded sample."),
        "model.not_its_text": "ask does not return the model's text.",
        "model.fell_back_on_answer": "The model answered, but ask returned the recorded sample: reading its answer "
                                     "failed (ask printed its reason, below). The text is the content of the first "
                                     "choice's message in the answer.",
        "model.text_marked_recorded": "ask returns the model's text, but marked as the recorded sample: recorded says where the text comes from.",
        "model.sample_not_marked": "ask returns the sample, but does not mark it as recorded: recorded says where the text comes from.",
        "model.bare_text": "ask returns the sample alone, a string, instead of an Answer: its recorded says where the text comes from.",
        "model.bare_model_text": "ask returns the model's text alone, a string, without saying where it comes from: "
                                 "as model.js returns {{ texte, enregistre: false }}, ask returns an Answer marked as "
                                 "coming from the model (model_answer, given, reads the response that way).",
        "model.no_request": "No request reached the model at the address AI_URL: what ask printed, below, says "
                            "why.",
        "model.request_differs": "The request is not the lesson's; what differs: {fields}.",
        "model.sdk_arguments": "No request left: the openai SDK refused the call, as "
                               "client.chat.completions.create needs model= and messages= (the messages ask got); one "
                               "is missing.",
        "model.not_the_sample": "ask does not return the recorded sample.",
        "model.fell_back_untried": "No request reached the model: ask must try the model before it returns the recorded "
                                   "sample.",
        "model.reason_placeholder": "<reason>",
        "model.fallback_line": "ask must print one line “Recorded sample: … (<reason>).”",
        "model.fallback_on_stderr": "ask prints the “Recorded sample: …” line on the error output (stderr): like "
                                    "model.js's console.log, it belongs on standard output, with the client's other "
                                    "lines.",
        "model.reason_lacks": "The reason does not say {words}.",
        "model.waited_too_long": "ask waited too long.",
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
        "bonus.client_unavailable": "skipped: this client cannot run here ({why})",
        "bonus.client_failed": "The client could not connect and list the tools.",
        "bonus.client_sees_wrong": "The client connected, but does not see what it should.",
        "trace.frame": "{file}, line {line}",
        "trace.frame_in": "{file}, line {line}, in {where}",
        "python.NameError": "Python does not know the name “{name}”: a typo, or a name defined further down or in "
                            "another function?",
        "python.UnboundLocalError": "“{name}” is a variable of the function here (an assignment or an import of "
                                    "{name} in the function makes it local), read before it got its value. To change a "
                                    "variable of the module (such as state), declare it global at the start of the "
                                    "function; for an import, do it before reading the name.",
        "python.KeyError.table": "This table of your file has no key “{name}”: look at the keys it has; a typo, maybe.",
        "python.KeyError": "The key “{name}” is not in this dictionary: check first that it is there; messages do "
                           "not all have the same keys.",
        "python.KeyError.id": "The key “id” is not in this dictionary: check first that it is there (a "
                              "notification has no id, and never gets a reply).",
        "python.KeyError.near": "The key “{name}” is not in this dictionary: a typo for “{near}”, a key of the "
                                "lesson's messages?",
        "python.JsName": "“{name}” is written so in JavaScript (and JSON); in Python it is {python}, with its capital. "
                         "json.loads and json.dumps translate one into the other.",
        "python.JsOperator": "&&, || and === are written so in JavaScript; in Python they are and, or and ==.",
        "python.Concatenate": "The + sign joins a text (str) only to another text: a dict or a list becomes JSON text "
                              "with json.dumps(value), a number becomes text with str(value).",
        "python.ConcatenateAnswer": "ask returns an Answer, not a text: the model's sentence is in its field text "
                                    "(answer.text).",
        "python.AttributeError": "This value has no attribute “{name}”: check its type and the spelling.",
        "python.FunctionNotCalled": "This value is a function, not its result: a function named without its "
                                    "parentheses (scenario instead of scenario()) is not called.",
        "python.MethodAttribute": "This value is a function, not its result: a function or a method named without "
                                  "its parentheses (line.strip instead of line.strip()) is not called, and has no "
                                  "attribute “{name}”.",
        "python.DictAttribute": "A dictionary (dict) has no attribute “{name}”: a JSON message read by Python is a "
                                "dict, and its keys are read in brackets, message[\"{name}\"], not with a dot as in "
                                "JavaScript.",
        "python.NoneAttribute": "This value is None (nothing): it has no attribute “{name}”. None often comes from "
                                "a missing key read with .get(), or a function without return.",
        "python.StrAttribute": "This value is a text (str), with no attribute “{name}”: a line received is text, and "
                               "becomes a dict only once read as JSON.",
        "python.NoneSubscript": "This value is None (nothing): it has no keys to read. None often comes from "
                                "a missing key read with .get(), or a function without return.",
        "python.StrSubscript": "This text (str) is read as a dict: a line received is text, and becomes a dict only "
                               "once read as JSON.",
        "python.TypeError": "An operation got a value of the wrong type, or a function the wrong number of arguments.",
        "python.IndexError": "An index goes past the end of the list (the first one is 0).",
        "python.FormatIndex": "This text has more {{}} than .format gets values: each {{}} takes the next value. Give "
                              "as many, or name them, as {{reason}} with .format(reason=…).",
        "python.ValueError": "A function got a value it cannot handle.",
        "python.JSONDecodeError": "This text is not JSON: json.loads refused it.",
        "python.ZeroDivisionError": "A division by zero.",
        "python.RecursionError": "A function calls itself without end: Python stopped at its depth limit.",
        "python.AssertionError": "An assert in your code failed.",
        "python.FileNotFoundError": "A file or a program that cannot be found: check its name and the folder it is "
                                    "looked for in.",
        "python.BrokenPipeError": "The other program stopped (or closed its input) while this one was writing to "
                                  "it.",
        "python.UnicodeDecodeError": "Bytes that are not UTF-8 text.",
        "python.UnicodeEncodeError": "A character this output cannot write.",
        "python.SyntaxError": "Python cannot read this file: this line is malformed.",
        "python.NotUtf8": "Python cannot read this file: it is not saved as UTF-8.",
        "python.IndentationError": "Python cannot read this file: this line's indentation is wrong.",
        "python.TabError": "Python cannot read this file: it mixes tabs and spaces.",
        "python.ModuleNotFoundError": "A module that cannot be found: check its name, and that its file is beside it.",
        "python.ImportError": "A name that cannot be found in the imported module: check its spelling.",
        "python.other": "Your code raised the exception {type}.",
        "load.syntax": "Python cannot read {file}: line {line} (or the one just before) is malformed — a bracket, a "
                       "colon, a quote or the indentation. Nothing else can be checked before that.",
        "load.encoding": "Python cannot read {file}: its line {line} has a character that is not UTF-8 (a file saved "
                         "as Latin-1 or Windows-1252?). Save it as UTF-8; nothing else can be checked before that.",
        "load.import": "{file}, line {line}, imports a module that cannot be found: check its name, and that the file "
                       "is beside it ({beside}).",
        # Issue 34: every mistake named first (lab/checks/server_checks.py, client_checks.py, model_checks.py).
        "server.replies_glued": "Line {number} of the output glues several replies together: each reply ends with "
                                "a newline, one reply per line.",
        "server.writes_on_at_eof": "Once its input closed, the server does not stop: it wrote {count} more line(s) "
                                   "and was stopped. At the end of input, reading gives an empty string (an empty "
                                   "line gives \"\\n\"): the loop ends there.",
        "server.notification_misnamed": ("The request {what} still gets -32600: the server never became ready. "
                                         "Your server.py waits for the notification \"{near}\", but the client "
                                         "sends \"notifications/initialized\": the name must be exactly that one."),
        "server.never_ready": "The request {what} still gets -32600: the server never became ready, or the test that "
                              "answers -32600 refuses the ready state too. Check both: notifications/initialized moves "
                              "the state from attente to pret, and only nouveau and attente get -32600.",
        "model.retried": "ask sent {count} requests to the silent model: a request with no answer in time is not "
                         "retried (the openai SDK retries on its own unless told not to).",
        "server.replies_on_stderr": "The server wrote its replies on stderr, and nothing on stdout: the client reads "
                                    "stdout only; stderr is for log messages.",
        "server.eof_error": "The server stopped with code {code} at the end of its input: input() raises EOFError "
                            "there. The end of input ends the loop, without an error.",
        "server.printed_python": "Line {number} of the output is a Python dict written as it is (single quotes, None, "
                                 "True), not JSON: the client reads JSON only.",
        "server.reply_split": "Line {number} of the output opens a reply that goes on over the next lines: the "
                              "client reads one reply per line. A JSON reply fits on one line (no indent).",
        "client.message_split": "The server received the first message on {count} lines: it reads one message per "
                                "line, and none of these lines is one. A JSON message fits on one line (no indent).",
        "client.max_tokens": "ask gets max_tokens {got} instead of {want}: the lesson asks the model for a short "
                             "sentence, and tells it so with ask's third argument.",
        "client.prefix_without_space": "The lines start with \"{prefix}\" without the space after the arrow.",
        "client.printed_python": "The \"{prefix}\" lines show Python's dict (single quotes, None, True) instead of "
                                 "the JSON text exchanged with the server.",
        "server.two_replies.hint": "Once its reply is written, a request is done: nothing more is written for it, "
                                   "after an error either.",
        "server.two_replies": "The request {what} got {count} replies: a request gets one, and only one.",
        "server.handled_again": "The request {what} got {count} replies, the second right after the -32700 error: "
                                "after a line that is not JSON, the loop handled the previous request again instead "
                                "of going on to the next line.",
        "server.error_under_result": "Reply to the request {what}: the error (code, message) is written under result "
                                     "instead of error. An error goes under \"error\" (fail, part 1).",
        "server.capabilities_as_text": "result.capabilities is a text holding JSON, not an object: the capabilities' "
                                       "dict goes into the reply as it is, and the reply is written as JSON once.",
        "server.refused_but_moved": "The request {what} gets -32600 (already initialized), although no initialize has "
                                    "been accepted yet: a refused initialize still changed the server's state. The state "
                                    "moves to waiting only once the version is accepted.",
        "server.version_not_read": "error.data.requested is null, although the request asked for 1999-01-01: the "
                                   "server did not read the version where it is, in params.protocolVersion.",
        "server.version_misspelt": "The server refuses {asked}, and its list of versions gives \"{listed}\": a typo in "
                                   "VERSIONS?",
        "server.answers_notifications": "{count} reply(ies) answering no request: replies to notifications, which get "
                                        "none. For example: {example}",
        "server.error_id_null": "The request {what} has no reply with its id, and an error {code} carries id null: "
                                "only the -32700 error (a line that is not JSON) has id null; any other reply takes "
                                "its request's id.",
        "server.parse_error_no_id": "The -32700 error has no id key: it carries \"id\": null, since a line that is "
                                    "not JSON has no id the server can read.",
        "server.parse_error_id": "The -32700 error carries the id {id} instead of null: a line that is not JSON has no "
                                 "id the server can read, not even the previous request's.",
        "server.stopped_on_not_json": "Your server stopped (code {code}) on a line that is not JSON, before its input "
                                      "ended.",
        "server.stopped_on_blank_line": "Your server stopped on an empty line (code {code}), before its input ended.",
        "server.parse_error_for_json": "Your server answers -32700 (parse error) to a line that is JSON, such as "
                                       "{line}: -32700 is only for a line that is not JSON.",
        "server.not_a_request_code": "Your server answers the error {code} to a JSON line that is not a request, such "
                                     "as {line}: the one that fits is -32600 (invalid request), or no reply, as in the "
                                     "lesson.",
        "server.state_compared": "The request {what} still gets -32600: the state never changes. Line {line} of "
                                 "your server.py, `{code}` compares the state with a name and changes nothing: to "
                                 "change the state, write a single =: `{fixed}` (== is for testing).",
        "server.text_compared_by_is": "The request {what} still gets -32600: the server never became ready. Line "
                                      "{line} of your server.py, `{code}` compares with is, which tests for the same "
                                      "object, not the same text: a text read from a message never is. Write "
                                      "`{fixed}`.",
        "server.unknown_method_unnamed": "The -32601 error's message does not say which method is unknown: as in the "
                                         "lesson (\"Unknown method: \" + the method), it names \"{method}\".",
        "server.stayed_new": "The request {what} still gets -32600, and a second initialize is still accepted: after "
                             "an initialize that succeeded, the server's state stayed \"new\". initialize must change "
                             "the server's state (the module's, not a variable of the function).",
        "server.unknown_tools_list": "The request {what} gets -32601 (unknown method): your server does not recognise "
                                     "the name tools/list. Compare its spelling with the lesson's.",
        "server.stopped_on_not_a_request": "Your server stopped on a JSON line that is not a request: {line} "
                                           "(code {code}).",
        "server.stopped_on_initialize_without_params": "Your server stopped on an initialize without params: {line} "
                                                       "(code {code}).",
        "server.invalid_request_id": "Your server answers {line} with {reply}: this line has the id {id}, and its reply "
                                     "carries it, even when it is the error -32600 (invalid request); only the -32700 "
                                     "error (a line that is not JSON) has id null.",
        "server.invalid_request_unanswered": "Your server gives no reply to {line}: this line has an id, so it is a "
                                             "request, even with no method, and it gets a reply with that id (the "
                                             "error -32600, invalid request).",
        "server.answers_at_end": "No reply to this line in {seconds:g} s: your server answers only once its input has "
                                 "closed, as if it read all its input before answering. A real client waits for each "
                                 "reply before sending the next message.",
        "server.answers_at_end.hint": "Answer each line as soon as it is read, before reading the next: a program "
                                      "that first reads all its input (read(), readlines()) waits for it to close.",
        "client.nothing_reached": "The server received nothing from the client in {seconds:g} s, not one byte, and "
                                  "the client did not stop: what it writes stays on its side until it is flushed, "
                                  "unless it waits for the server before sending.",
        "client.printed_not_sent": "The client printed its messages (\"-> \"), but the server received none of them: "
                                   "they stayed on the client's side.",
        "client.line_never_ended": "The server received from the client one line that never ends ({size} characters "
                                   "with no newline): it reads line by line, and is still waiting for this one's end.",
        "client.transport.hint": "Each message goes on a line of its own: its JSON, a newline (\\n), then flush, so "
                                 "that it leaves at once; the server reads line by line.",
        "client.ask_not_messages": "ask gets {given} where it expects a list of messages, each an object with role "
                                   "and content.",
        "client.message_not_a_message": "Message {number} that ask gets, {given}, has no role and content: each "
                                        "message is an object with these two keys.",
        "client.facts_after_question": "The system message of facts(capabilities) goes after the question: it comes "
                                       "first, so that the model reads the facts before the question.",
        "client.question_role": "The question goes with the role {role}: the user asks it (\"user\"); the system "
                                "message holds only the facts.",
        "model.reason_not_given": "The reason “{reason}” is not one why_no_model (given) gives: for a refused "
                                  "connection it says “{expected}”.",
        "model.reason_not_given.hint": "Hand the error to why_no_model (given): it says why in a few words, in the "
                                       "chosen language; the error's own text is the library's.",
    },
}


def task_word(lang: str, task: str) -> str:
    from lab.checks import task_title  # the registry imports the checks, which import this table

    return task_title(task, lang)


def decimal_word(lang: str, value: Any) -> str:
    from lab.i18n import decimal

    return decimal(float(value), lang)


def cell_word(lang: str, cell: str) -> str:
    from lab.checks.answers_checks import cell_name  # the cells' English labels live with the cells

    return cell_name(cell, lang)


def cells_sentence(key: str) -> Callable[[str, list[str]], str]:
    """The other cells, as the sentence `key` naming them, or nothing when there are none."""
    return lambda lang, cells: say(lang, key, cells=cells) if cells else ""


def json_word(lang: str, value: Any) -> str:
    return TEXTS[lang]["value.missing"] if value is None else value


WORDS: dict[str, Callable[[str, Any], str]] = {
    "task": task_word,
    "got": json_word,
    "want": json_word,
    "who": lambda lang, value: TEXTS[lang][f"who.{value}"],
    "cpu": decimal_word,
    "load_seconds": decimal_word,
    "cell": cell_word,
    "cells": lambda lang, cells: ", ".join(cell_word(lang, cell) for cell in cells),
    "empty_cells": cells_sentence("answers.still_empty"),
    "wrong_cells": cells_sentence("answers.also_wrong"),
}


def say(lang: str, key: str, **fields: Any) -> str:
    """The sentence for `key` in `lang` (fr when the language is unknown), its fields filled in."""
    lang = lang if lang in TEXTS else "fr"
    return fill(lang, TEXTS[lang][key], **fields)


def fill(lang: str, template: str, **fields: Any) -> str:
    """A template of this table's shape, its fields written in `lang` (see WORDS)."""
    return template.format(**{name: word(lang, name, value) for name, value in fields.items()})


def word(lang: str, name: str, value: Any) -> Any:
    """A field's value as the sentence shows it (see WORDS, and reasons inside reasons)."""
    if name in WORDS:
        return WORDS[name](lang, value)
    if isinstance(value, dict) and set(value) <= {"reason", "fields"} and value.get("reason") in TEXTS[lang]:
        return say(lang, value["reason"], **value.get("fields", {}))
    return value


def in_each_language(key: str, **fields: Any) -> dict[str, str]:
    """{"fr": …, "en": …}: a key written in both languages, for what is shown in either (a
    check's title, a lesson part's name)."""
    return {lang: say(lang, key, **fields) for lang in TEXTS}


def field_names(template: str) -> set[str]:
    """The {name} placeholders of a template."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}
