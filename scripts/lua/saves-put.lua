-- wrk: PUT saves with the right version every time, so the figure is the write path and not
-- conflict answers. Each thread owns its own slots, never sends a slot whose previous write is
-- still in flight, and learns each slot's version from the answers (`{slot, version, ...}`).
-- Args: api_key run_label
local counter = 0
local threads = {}
function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
  table.insert(threads, thread)
end

local key, label, free, versions, body_tail
function init(args)
  key = args[1]
  label = args[2]
  free, versions = {}, {}
  for i = 1, 128 do
    local slot = "t" .. id .. "-" .. i
    table.insert(free, slot)
    versions[slot] = 0
  end
  -- About 1 KiB of game state.
  local items = {}
  for i = 1, 40 do items[i] = string.format('{"id":%d,"name":"item-%d","qty":%d}', i, i, i * 3) end
  body_tail = '{"level":12,"gold":48213,"position":[12.5,-3.25,7.0],"inventory":[' .. table.concat(items, ",") .. ']}'
end

function request()
  local slot = table.remove(free)
  if not slot then
    -- Only if answers without a slot (errors) used the pool up: start a new slot.
    extra = (extra or 0) + 1
    slot = "t" .. id .. "-x" .. extra
    versions[slot] = 0
  end
  local body = '{"version":' .. versions[slot] .. ',"data":' .. body_tail .. '}'
  return wrk.format("PUT", "/v1/saves/bench-" .. label .. "/" .. slot,
    { ["x-game-api-key"] = key, ["content-type"] = "application/json" }, body)
end

function response(status, headers, body)
  local slot = body:match('"slot":"([^"]+)"')
  local version = body:match('"version":(%d+)')
  if status == 200 and slot then
    versions[slot] = tonumber(version)
    table.insert(free, slot)
  end
end
