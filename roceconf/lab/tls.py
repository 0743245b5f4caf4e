"""Credentials the loopback lab generates for itself: a private CA and the eAPI server certificate it signs
(subject alternative names 127.0.0.1 and localhost), and an SSH client key the lab's SSH servers accept.

Clients verify the eAPI certificate against ``ca.pem`` exactly as they would a production switch's (a
certificate signed by the company CA); a key-only login works with ``client_key``. Everything lives in a
private temporary directory that the lab removes when it stops.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import shutil
import ssl
import tempfile
from dataclasses import dataclass
from pathlib import Path

import asyncssh
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def _name(cn: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "roceconf lab"),
            x509.NameAttribute(NameOID.COMMON_NAME, cn),
        ]
    )


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def make_ca(
    directory: Path, name: str = "roceconf lab CA"
) -> tuple[Path, x509.Certificate, ec.EllipticCurvePrivateKey]:
    """A self-signed CA certificate (written to DIR/ca.pem) and its key."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(name))
        .issuer_name(_name(name))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(key, hashes.SHA256())
    )
    path = directory / "ca.pem"
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return path, cert, key


@dataclass
class LabCredentials:
    directory: Path
    ca_file: Path
    cert_file: Path
    key_file: Path
    client_key_file: Path
    client_key: asyncssh.SSHKey

    def server_context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(self.cert_file, self.key_file)
        return ctx

    def remove(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)


def generate() -> LabCredentials:
    directory = Path(tempfile.mkdtemp(prefix="roceconf-lab-"))
    ca_file, ca_cert, ca_key = make_ca(directory)
    key = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name("127.0.0.1"))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    cert_file = directory / "eapi.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file = directory / "eapi.key"
    key_file.write_bytes(_pem_key(key))
    client = asyncssh.generate_private_key("ssh-ed25519")
    client_file = directory / "client_key"
    client_file.write_bytes(client.export_private_key("openssh"))
    for p in (key_file, client_file):
        os.chmod(p, 0o600)
    return LabCredentials(directory, ca_file, cert_file, key_file, client_file, client)
