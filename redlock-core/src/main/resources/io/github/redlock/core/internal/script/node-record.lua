-- Records that a client saw a node's server process: KEYS[1] the node's record on another node, a hash whose
-- fields are "run_id:max-ttl:quarantine" (the client's max-ttl and how long its quarantine lasts, ms) and whose
-- values say when the field was last written (this server's ms). ARGV[1] the run_id seen, ARGV[2] the client's
-- max-ttl, ARGV[3] its quarantine. A field matters for two quarantines and a refresh period (a quarter of one) of
-- its own, whoever writes: no client prunes or shortens what a client with a longer max-ttl needs. Drops fields
-- older than that, so the hash stays small; the hash's expiry only ever grows, and it expires when nobody refreshes it.
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local own = tonumber(ARGV[3])
local function keep(quarantine)
    return 2 * quarantine + math.floor(quarantine / 4)
end
local field = ARGV[1] .. ':' .. ARGV[2] .. ':' .. ARGV[3]
local entries = redis.call('hgetall', KEYS[1])
for i = 1, #entries, 2 do
    local quarantine = tonumber(string.match(entries[i], ':(%d+)$')) or own -- a field without one: an older client's
    if entries[i] ~= field and tonumber(entries[i + 1]) < now - keep(quarantine) then
        redis.call('hdel', KEYS[1], entries[i])
    end
end
redis.call('hset', KEYS[1], field, now)
if redis.call('pttl', KEYS[1]) < keep(own) then
    redis.call('pexpire', KEYS[1], keep(own))
end
return 1
