#!/usr/bin/env bash
# Test certificates for the rig's TLS ports (openssl), written to DIR:
#   ca.pem/ca.key         the test CA (what clients trust)
#   server.pem/.key       signed by it, subjectAltName IP:127.0.0.1, DNS:localhost (30 days)
#   expired.pem/.key      signed by it, same names, expired in 2020
#   other-ca.pem/.key     a second CA; other-server.pem/.key is a server cert it signed
#   client.pem/.key       a client certificate signed by the test CA (mutual TLS)
#   other-client.pem/.key a client certificate signed by the second CA
# Reuses existing files unless the server certificate expires within a day.
#
# Usage: scripts/tls-certs.sh DIR
set -euo pipefail

DIR=${1:?usage: scripts/tls-certs.sh DIR}
mkdir -p "$DIR"
cd "$DIR"

if [[ -s server.pem && -s expired.pem && -s client.pem && -s other-server.pem ]] &&
    openssl x509 -in server.pem -noout -checkend 86400 >/dev/null 2>&1; then
    exit 0
fi

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

ca() { # name subject
    key "$1.key"
    openssl req -x509 -new -key "$1.key" -days 3650 -subj "/CN=$2" -out "$1.pem" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
}

# leaf name ca subject extfile-lines [startdate enddate]
leaf() {
    local name=$1 ca=$2 subj=$3 ext=$4
    key "$name.key"
    openssl req -new -key "$name.key" -subj "/CN=$subj" -out "$name.csr" 2>/dev/null
    printf '%b\n' "$ext" >"$name.ext"
    if [[ $# -ge 6 ]]; then
        # Past validity needs `openssl ca` (x509 -req cannot set the start date).
        mkdir -p ca-db
        : >ca-db/index.txt
        [[ -s ca-db/serial ]] || echo 1000 >ca-db/serial
        cat >ca-db/ca.cnf <<CNF
[ca]
default_ca = test
[test]
database = ca-db/index.txt
serial = ca-db/serial
new_certs_dir = ca-db
default_md = sha256
policy = any
unique_subject = no
copy_extensions = none
[any]
commonName = supplied
CNF
        openssl ca -batch -config ca-db/ca.cnf -cert "$ca.pem" -keyfile "$ca.key" -in "$name.csr" \
            -startdate "$5" -enddate "$6" -extfile "$name.ext" -out "$name.pem" -notext 2>/dev/null
    else
        openssl x509 -req -in "$name.csr" -CA "$ca.pem" -CAkey "$ca.key" -CAcreateserial -days 30 \
            -extfile "$name.ext" -out "$name.pem" 2>/dev/null
    fi
    rm -f "$name.csr" "$name.ext"
}

SERVER_EXT='subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE'
CLIENT_EXT='extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE'

ca ca "chwire test CA"
ca other-ca "chwire other CA"
leaf server ca localhost "$SERVER_EXT"
leaf expired ca localhost "$SERVER_EXT" 20200101000000Z 20200201000000Z
leaf other-server other-ca localhost "$SERVER_EXT"
leaf client ca chwire-client "$CLIENT_EXT"
leaf other-client other-ca chwire-client "$CLIENT_EXT"
chmod 600 ./*.key
echo "tls-certs.sh: test certificates written to $DIR" >&2
