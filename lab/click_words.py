"""Click's own words (Usage, Options, its errors) in the kit's language, without a system locale:
`speak("fr")` rebinds gettext's `_` in click's modules to the catalogue below; `localize` names
the metavars (INTEGER, DIRECTORY...), which click never translates.
"""

from __future__ import annotations

import gettext
import importlib

import click

CLICK_MODULES = ("core", "decorators", "exceptions", "formatting", "parser", "types", "termui", "utils")

FRENCH = {
    "Usage:": "Utilisation :",
    "Options": "Options",
    "Commands": "Commandes",
    "Positional arguments": "Arguments",
    "Show this message and exit.": "Affiche cette aide et s’arrête.",
    "Show the version and exit.": "Affiche la version et s’arrête.",
    "%(prog)s, version %(version)s": "%(prog)s, version %(version)s",
    "default: {default}": "par défaut : {default}",
    "required": "obligatoire",
    "env var: {var}": "variable d’environnement : {var}",
    "Error: {message}": "Erreur : {message}",
    "Try '{command} {option}' for help.": "Essayez « {command} {option} » pour l’aide.",
    "No such option: {name}": "Option inconnue : {name}",
    "No such option {name!r}.": "Option inconnue : {name!r}.",
    "Did you mean {possibility}?": "Vouliez-vous dire {possibility} ?",
    "(Possible options: {possibilities})": "(options possibles : {possibilities})",
    "(Did you mean one of: {possibilities}?)": "(vouliez-vous dire l’une de : {possibilities} ?)",
    "No such command {name!r}.": "Commande inconnue : {name!r}.",
    "Missing command.": "Commande manquante.",
    "Missing argument": "Argument manquant",
    "Missing option": "Option manquante",
    "Missing parameter": "Paramètre manquant",
    "Missing {param_type}": "{param_type} manquant",
    "Missing parameter: {param_name}": "Paramètre manquant : {param_name}",
    "argument": "argument",
    "option": "option",
    "parameter": "paramètre",
    "Got unexpected extra argument ({args})": "Argument en trop ({args})",
    "Got unexpected extra arguments ({args})": "Arguments en trop ({args})",
    "Option {name!r} does not take a value.": "L’option {name!r} ne prend pas de valeur.",
    "Option {name!r} requires an argument.": "L’option {name!r} demande une valeur.",
    "Option {name!r} requires {nargs} arguments.": "L’option {name!r} demande {nargs} valeurs.",
    "Invalid value for {param_hint}: {message}": "Valeur invalide pour {param_hint} : {message}",
    "Invalid value: {message}": "Valeur invalide : {message}",
    "{value!r} is not one of {choices}.": "{value!r} n’est pas l’un de {choices}.",
    "{value!r} is not {choice}.": "{value!r} n’est pas {choice}.",
    "{value!r} is not a valid {number_type}.": "{value!r} n’est pas un nombre valide.",
    "{value} is not in the range {range}.": "{value} n’est pas dans l’intervalle {range}.",
    "{value!r} is not a valid boolean. Recognized values: {states}":
        "{value!r} n’est pas un booléen valide. Valeurs reconnues : {states}",
    "{name} {filename!r} does not exist.": "{name} {filename!r} n’existe pas.",
    "{name} {filename!r} is a file.": "{name} {filename!r} est un fichier.",
    "{name} {filename!r} is a directory.": "{name} {filename!r} est un dossier.",
    "{name} {filename!r} is not readable.": "{name} {filename!r} n’est pas lisible.",
    "{name} {filename!r} is not writable.": "{name} {filename!r} n’est pas accessible en écriture.",
    "file": "fichier",
    "directory": "dossier",
    "path": "chemin",
    "Aborted!": "Interrompu !",
    "unknown error": "erreur inconnue",
}

# Click's metavars come from type names, which it never translates.
FRENCH_METAVARS = {"DIR": "DOSSIER", "[DIR]": "[DOSSIER]", "SUBMISSION...": "TRAVAIL...", "INTEGER": "ENTIER", "FLOAT": "NOMBRE",
                   "TEXT": "TEXTE", "DIRECTORY": "DOSSIER", "FILE": "FICHIER", "PATH": "CHEMIN",
                   "INTEGER RANGE": "ENTIER", "FLOAT RANGE": "NOMBRE"}


class FrenchHelpFormatter(click.HelpFormatter):
    """Section headings with French typography: "Options :"."""

    def write_heading(self, heading: str) -> None:
        self.write(f"{'':>{self.current_indent}}{heading} :\n")


class FrenchContext(click.Context):
    formatter_class = FrenchHelpFormatter


def french(message: str) -> str:
    return FRENCH.get(message, message)


def speak(lang: str) -> None:
    """Click's texts in `lang` from now on, in this process."""
    if lang == "fr":
        words, plurals = french, lambda one, many, count: french(one if count == 1 else many)
    else:
        words, plurals = gettext.gettext, gettext.ngettext
    for name in CLICK_MODULES:
        module = importlib.import_module(f"click.{name}")
        if hasattr(module, "_"):
            module._ = words  # type: ignore[attr-defined]
        if hasattr(module, "ngettext"):
            module.ngettext = plurals  # type: ignore[attr-defined]


def type_metavar(kind: click.ParamType) -> str:
    if isinstance(kind, click.Path):
        return "DOSSIER" if not kind.file_okay else "FICHIER" if not kind.dir_okay else "CHEMIN"
    return FRENCH_METAVARS.get(kind.name.upper(), kind.name.upper())


def localize(group: click.Group, lang: str) -> None:
    """Name the metavars of `group` and its commands in `lang` (click's are English)."""
    if lang != "fr":
        return
    group.subcommand_metavar = "COMMANDE [ARGUMENTS]..."
    for command in [group, *group.commands.values()]:
        command.context_class = FrenchContext
        for param in command.params:
            if param.metavar in FRENCH_METAVARS:
                param.metavar = FRENCH_METAVARS[param.metavar]
            elif (param.metavar is None and isinstance(param, click.Option) and not param.is_flag
                  and not isinstance(param.type, click.Choice)):
                param.metavar = type_metavar(param.type)
