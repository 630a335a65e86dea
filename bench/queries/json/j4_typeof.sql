-- jsonb_typeof of a field whose type varies from row to row (absent: NULL)
select jsonb_typeof(payload::jsonb -> 'value') as t, count(*) as n
from events
group by 1
order by 1 nulls last;
