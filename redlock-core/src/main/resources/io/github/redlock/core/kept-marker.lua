-- Marks, on a node itself, since which of its server processes its data set has been logged write by write
-- (appendonly yes, appendfsync always), as clients saw it: KEYS[1] the marker; ARGV[1] the node's run_id now;
-- ARGV[2] '1' when the node logs every write before answering, else '0'. Sets the marker where there is none on a
-- durable node and deletes it on one that is not. Returns the marker as it was before, or false. A script, so that
-- its write is logged and replayed exactly as the locks' scripts' writes are: a node that drops those on a restart
-- drops the marker too. A marker of another run_id than the node's own proves that the node came back with the data
-- it acknowledged before it started.
if redis.replicate_commands then redis.replicate_commands() end
local before = redis.call('get', KEYS[1])
if ARGV[2] == '1' then
    if not before then
        redis.call('set', KEYS[1], ARGV[1])
    end
elseif before then
    redis.call('del', KEYS[1])
end
return before
