-- ROLLUP: revenue by year, customer region and part category, with subtotals and the grand total
select d_year, c_region, p_category, sum(lo_revenue) as revenue, count(*) as n
from lineorder, date, customer, part
where lo_orderdate = d_datekey
  and lo_custkey = c_custkey
  and lo_partkey = p_partkey
group by rollup (d_year, c_region, p_category)
order by d_year nulls last, c_region nulls last, p_category nulls last;
