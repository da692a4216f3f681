module parlab/scripts/fastjson

go 1.26

require github.com/valyala/fastjson v1.6.10
