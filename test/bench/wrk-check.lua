-- wrk script of test/bench/wrk-load.ts: every response is checked against the one expected
-- (status, Content-Type, Server and every body byte), counted per thread and summed at the end
-- into one line the bench reads. wrk runs this file once per thread and once more for done().

local function read_file(name)
  local file = assert(io.open(name, 'rb'))
  local text = file:read('*a')
  file:close()
  return text
end

local expected_status = tonumber(os.getenv('BENCH_STATUS'))
local expected_type = os.getenv('BENCH_CONTENT_TYPE')
local expected_server = os.getenv('BENCH_SERVER')
local expected_body = read_file(os.getenv('BENCH_BODY_FILE'))

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  checked = 0
  wrong = 0
  first_wrong = ''
end

function response(status, headers, body)
  checked = checked + 1
  if status ~= expected_status or headers['Content-Type'] ~= expected_type or headers['Server'] ~= expected_server or body ~= expected_body then
    wrong = wrong + 1
    if first_wrong == '' then first_wrong = tostring(status) .. ' ' .. tostring(headers['Content-Type']) .. ' ' .. tostring(#body) .. ' bytes' end
  end
end

function done(summary, latency, requests)
  local total_checked, total_wrong, example = 0, 0, ''
  for _, thread in ipairs(threads) do
    total_checked = total_checked + thread:get('checked')
    total_wrong = total_wrong + thread:get('wrong')
    if example == '' then example = thread:get('first_wrong') end
  end
  local errors = summary.errors
  io.write(string.format('vendorplay-wrk requests=%d us=%d checked=%d wrong=%d socket_errors=%d first_wrong=%s\n',
    summary.requests, summary.duration, total_checked, total_wrong,
    errors.connect + errors.read + errors.write + errors.timeout + errors.status, example))
end
