-- Asks for a compressed answer, as a browser does.
wrk.headers["accept-encoding"] = os.getenv("ACCEPT_ENCODING") or "gzip, deflate, br"
