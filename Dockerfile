# Release image of playtrace: one binary, configured entirely by PLAYTRACE_* variables.
#
#   docker build -t playtrace .
#   docker run -p 8080:8080 -v playtrace-data:/var/lib/playtrace playtrace
#
# Without PLAYTRACE_DATABASE_URL the image keeps its SQLite database on the /var/lib/playtrace
# volume. The process runs as the unprivileged user `playtrace` (uid/gid 10001); a host directory
# bind-mounted there must be writable by that uid (a named volume is set up by Docker itself).
FROM rust:1-bookworm AS build
WORKDIR /src
# The dependencies first, in a layer of their own: it depends only on the manifests and the
# lock, so a change to playtrace's own code rebuilds playtrace alone, not the hundreds of
# crates under it. The workspace's three crates (playtrace, entity, migration) are stubs here:
# empty library roots, an empty main and an empty `api` test target (the manifest names it, so
# it must exist).
COPY Cargo.toml Cargo.lock ./
COPY entity/Cargo.toml entity/
COPY migration/Cargo.toml migration/
RUN mkdir -p src tests/api entity/src migration/src \
    && echo 'fn main() {}' > src/main.rs \
    && touch src/lib.rs tests/api/main.rs entity/src/lib.rs migration/src/lib.rs \
    && cargo build --release --locked \
    && rm -rf src tests entity/src migration/src
# Then the sources. COPY keeps the files' own modification times, which can be older than the
# stubs' build: touching the crate roots makes cargo see them as changed and rebuild the three
# crates from the real sources, never link the stubs.
COPY . .
RUN touch src/main.rs src/lib.rs entity/src/lib.rs migration/src/lib.rs \
    && cargo build --release --locked

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 playtrace \
    && useradd --system --uid 10001 --gid playtrace --home-dir /var/lib/playtrace \
       --no-create-home --shell /usr/sbin/nologin playtrace \
    && mkdir -p /var/lib/playtrace \
    && chown playtrace:playtrace /var/lib/playtrace \
    && chmod 0750 /var/lib/playtrace
COPY --from=build /src/target/release/playtrace /usr/local/bin/playtrace
ENV PLAYTRACE_LISTEN=0.0.0.0:8080 \
    PLAYTRACE_DATABASE_URL="sqlite:///var/lib/playtrace/playtrace.db?mode=rwc"
# Declared after the directory got its owner: a new named volume starts as a copy of it.
VOLUME ["/var/lib/playtrace"]
WORKDIR /var/lib/playtrace
# Numeric, so that runtimes enforcing "run as non-root" (Kubernetes runAsNonRoot) can check it.
USER 10001:10001
EXPOSE 8080
# Liveness of an API node on the default PLAYTRACE_LISTEN port. A `--role worker` container
# listens on nothing: disable or replace this check for it (docker-compose.yml does).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["curl", "-fsS", "-o", "/dev/null", "http://127.0.0.1:8080/healthz"]
ENTRYPOINT ["playtrace"]
CMD ["serve"]
