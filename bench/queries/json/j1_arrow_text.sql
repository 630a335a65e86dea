-- ->> on top-level fields: the length of every timestamp, how many rows have a non-null "value"
select count(*) as n, sum(length(payload::json ->> 'ts')) as ts_chars, count(payload::json ->> 'value') as with_value
from events;
