select count(*) as n, sum(length(payload ->> 'ts')) as ts_chars, count(payload ->> 'value') as with_value
from events;
