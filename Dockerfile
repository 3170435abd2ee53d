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
COPY . .
RUN cargo build --release --locked

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
