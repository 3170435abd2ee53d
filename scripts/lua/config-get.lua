-- wrk: GET /v1/config, optionally with If-None-Match. Args: api_key [etag]
local key, etag
function init(args)
  key = args[1]
  etag = args[2]
end
function request()
  local headers = { ["x-game-api-key"] = key }
  if etag and etag ~= "" then headers["if-none-match"] = etag end
  return wrk.format("GET", "/v1/config", headers)
end
