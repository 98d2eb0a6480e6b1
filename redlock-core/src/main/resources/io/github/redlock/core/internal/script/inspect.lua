-- Inspection of one of a lock's keys, one node, read only: { type, value, ms }. A string (an exclusive or write lock):
-- its value (the holder's token) and its time to live in ms. A sorted set (a read-write lock's readers: token ->
-- expiry, server ms): how many readers are live, and how long the last of them still has. Anything else: its type,
-- an empty value and its time to live (-2 when the key does not exist).
local kind = redis.call('type', KEYS[1]).ok
if kind == 'string' then
    return { kind, redis.call('get', KEYS[1]), redis.call('pttl', KEYS[1]) }
end
if kind == 'zset' then
    local time = redis.call('time')
    local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    local live = redis.call('zrangebyscore', KEYS[1], '(' .. now, '+inf', 'WITHSCORES')
    local latest = 0
    for i = 2, #live, 2 do
        latest = math.max(latest, tonumber(live[i]) - now)
    end
    return { kind, tostring(#live / 2), latest }
end
return { kind, '', redis.call('pttl', KEYS[1]) }
