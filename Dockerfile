# The lab image: the `agent` container students exec into, and the `grader`.
# Build and start it with `docker compose up -d` (see the README, "The docker lab").
# Pinned to a Python release and a Debian release (docs/platforms.md says how to bump it).
# LAB_BASE_IMAGE swaps the base for another Debian image with python and pip on PATH: where no
# registry is reachable, docker/classroom-test builds one from Debian's packages (docs/docker.md).
ARG LAB_BASE_IMAGE=python:3.12.12-slim-trixie
FROM ${LAB_BASE_IMAGE}

# Bytecode cached outside the students' bind-mounted checkout (no .pyc in their folder,
# yet each module compiled once, not at every command), output shown at once, and no
# pip cache kept in the image.
ENV PYTHONPYCACHEPREFIX=/tmp/pycache \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# bubblewrap: `lab grade` runs every submission's processes in a sandbox of their own
# (docs/isolation.md); the grader service lets it create the namespaces it needs.
RUN apt-get update \
    && apt-get install --yes --no-install-recommends bubblewrap \
    && rm -rf /var/lib/apt/lists/*

# A non-root user. uid/gid 1000 is the first user on most Linux hosts, so files in the
# bind-mounted project stay writable; docker-compose.yml lets LAB_UID/LAB_GID change it.
RUN groupadd --gid 1000 lab \
    && useradd --uid 1000 --gid 1000 --create-home --shell /bin/bash lab

# The lesson's project folder is /home/node/project; ours is /home/lab/project.
WORKDIR /home/lab/project

# Install the kit first, from the files it needs, so that editing exercises or docs does
# not reinstall it. A plain install, as users install it: the image runs the kit it was
# built with (the reference solutions inside it), and the checkout compose bind-mounts over
# this folder gives students their exercises/. After changing the kit: docker compose build.
COPY --chown=lab:lab pyproject.toml README.md ./
COPY --chown=lab:lab lab ./lab
COPY --chown=lab:lab solutions ./solutions
RUN pip install . && rm -rf build

# The rest of the project, for running the image without the bind mount.
COPY --chown=lab:lab . .

USER lab

# Stay up so students can `docker compose exec agent lab run`, as the lesson's
# `docker exec ... agent ...`.
CMD ["sleep", "infinity"]
